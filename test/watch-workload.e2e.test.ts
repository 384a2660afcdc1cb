// runs alone: asserts the live prober's dispatch lag
/**
 * `goodput watch` probes with the workload the flags describe, as `goodput run` does: multi-turn
 * sessions (each later turn carries the earlier ones and the server's replies), a shared system
 * prompt, cancelled users, warmup requests that are sent but not counted in the round, and a
 * dataset's prompts (other entries every round; the daily budget reads them before sending). An
 * open-loop round (requests per second, or new sessions per second) is valid from the first
 * round of a fresh process: the prompt generator is loaded before the round's clock starts. Every request goes
 * through a loopback proxy in front of a simulator on port 0, which keeps the bodies.
 *
 * @module
 */

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../src/errors.js';
import { type SimServer, startSim } from '../src/sim/index.js';
import { ensureBuilt, runBin, runCliInProcess } from './helpers/cli.js';
import { recordingProxy } from './helpers/recording-proxy.js';

interface RoundEvent {
  kind: string;
  valid: boolean;
  invalidReason: string | null;
  attempted: number;
  completed: number;
  metrics: Record<string, number | null>;
}

const dir = mkdtempSync(join(tmpdir(), 'goodput-watch-workload-'));
let sim: SimServer;
let proxy: Awaited<ReturnType<typeof recordingProxy>>;

beforeAll(async () => {
  sim = await startSim({ host: '127.0.0.1', port: 0, seed: 2 });
  proxy = await recordingProxy(sim.url);
});
afterAll(async () => {
  await proxy.close();
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * One watch of `rounds` rounds through the proxy; its round events and the bodies it sent.
 * `fresh`: in a process of its own (nothing loaded yet, as a user starts it), else in this one.
 */
async function watch(args: string[], rounds = 1, fresh = false) {
  const sentBefore = proxy.bodies.length;
  const store = join(dir, `store-${Math.random().toString(36).slice(2)}.db`);
  const argv = [
    'watch',
    '--url',
    proxy.url,
    '--rounds',
    String(rounds),
    '--every',
    '300ms',
    '--store',
    store,
    '--json',
    ...args,
  ];
  const r = fresh
    ? await runBin(argv, { cwd: dir, timeoutMs: 60_000 })
    : await runCliInProcess(argv, { cwd: dir });
  expect(r.code, r.stderr).toBe(ExitCode.OK);
  const events = r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as RoundEvent)
    .filter((e) => e.kind === 'goodput.watch-round');
  return { events, bodies: proxy.bodies.slice(sentBefore), stderr: r.stderr };
}

describe('watch rounds follow the workload flags', () => {
  it('sessions: later turns carry the earlier turns and the replies; the round counts sessions', async () => {
    const { events, bodies } = await watch([
      '--sessions',
      '2',
      '--turns',
      '3',
      '--requests',
      '6',
      '--max-tokens',
      '8',
    ]);
    expect(events).toHaveLength(1);
    expect(events[0]!.attempted).toBe(6);
    expect(bodies).toHaveLength(6);
    // Turn k of a session sends 2k − 1 messages: its user turns and the k − 1 replies between them.
    const lengths = bodies.map((b) => b.messages.length).sort();
    expect(lengths).toEqual([1, 1, 3, 3, 5, 5]);
    for (const b of bodies.filter((x) => x.messages.length > 1)) {
      expect(b.messages[1]!.role).toBe('assistant');
      expect(String(b.messages[1]!.content).length).toBeGreaterThan(0);
    }
    expect(events[0]!.metrics.session_throughput).toBeGreaterThan(0);
  });

  it('a shared system prompt and cancelled users reach the server and the round', async () => {
    const { events, bodies } = await watch([
      '--system-prompt-tokens',
      '40',
      '--cancel-rate',
      '1',
      '--cancel-after-ms',
      '40',
      '--requests',
      '4',
      '--max-tokens',
      '64',
      '--ignore-eos',
    ]);
    expect(bodies).toHaveLength(4);
    for (const b of bodies) expect(b.messages[0]!.role).toBe('system');
    // Every user gives up after 40 ms, long before 64 tokens (~8 ms each): no request completes.
    expect(events[0]!.attempted).toBe(4);
    expect(events[0]!.completed).toBe(0);
  });

  it('warmup requests are sent but not counted in the round', async () => {
    const { events, bodies } = await watch(['--warmup', '3', '--requests', '4', '--max-tokens', '4']);
    expect(bodies).toHaveLength(7);
    expect(events[0]!.attempted).toBe(4);
  });

  it('open-loop rounds, of requests or of sessions, are valid from the first round', async () => {
    ensureBuilt();
    for (const load of [
      ['--rate', '20'],
      ['--session-rate', '10', '--turns', '2'],
    ]) {
      const { events } = await watch([...load, '--requests', '6', '--max-tokens', '4'], 2, true);
      expect(events).toHaveLength(2);
      // Loading the prompt generator inside the round made its first sends 90–120 ms late on an
      // idle machine (more under load). A cold process's first sends still lag while V8 compiles
      // them: 10–60 ms here with two busy loops beside it. So a round invalid for its schedule
      // must have lagged less than the generator alone cost.
      const lag = /send lag p99 ([\d.]+) ms/.exec(events[0]!.invalidReason ?? '');
      expect(Number(lag?.[1] ?? 0), `${load.join(' ')}: ${events[0]!.invalidReason}`).toBeLessThan(80);
    }
  }, 90_000);

  it('--dataset: rounds draw other entries of it every round; replies stay bounded by --max-tokens', async () => {
    const prompts = Array.from(
      { length: 12 },
      (_, i) => `Question ${i}: name a fruit that is ${i} letters long.`,
    );
    const file = join(dir, 'prompts.jsonl');
    writeFileSync(file, prompts.map((prompt) => JSON.stringify({ prompt, max_tokens: 500 })).join('\n'));
    const { events, bodies } = await watch(['--dataset', file, '--requests', '3', '--max-tokens', '4'], 3);
    expect(events).toHaveLength(3);
    expect(bodies).toHaveLength(9);
    const sent = bodies.map((b) => String(b.messages.at(-1)!.content));
    for (const text of sent) expect(prompts).toContain(text);
    // Seeded per round: the three rounds do not all send the same three prompts.
    const rounds = [0, 1, 2].map((r) =>
      sent
        .slice(3 * r, 3 * r + 3)
        .sort()
        .join('|'),
    );
    expect(new Set(rounds).size).toBeGreaterThan(1);
    for (const b of bodies as unknown as { max_tokens?: number; max_completion_tokens?: number }[])
      expect(b.max_tokens ?? b.max_completion_tokens).toBe(4);
  });

  it("--daily-token-budget reads a dataset round's own prompts before sending them", async () => {
    const long = join(dir, 'long.jsonl');
    const short = join(dir, 'short.jsonl');
    // ~1,000-token prompts: two of them are over an 800-token budget, whatever --prompt-tokens says.
    writeFileSync(long, `${JSON.stringify({ prompt: 'word '.repeat(1000) })}\n`);
    writeFileSync(short, `${JSON.stringify({ prompt: 'Name a colour.' })}\n`);
    const args = ['--requests', '2', '--max-tokens', '4', '--daily-token-budget', '800'];
    const skipped = await watch(['--dataset', long, ...args]);
    expect(skipped.events).toHaveLength(0);
    expect(skipped.bodies).toHaveLength(0);
    expect(skipped.stderr).toContain('daily token budget reached');
    const ran = await watch(['--dataset', short, ...args]);
    expect(ran.events).toHaveLength(1);
    expect(ran.bodies).toHaveLength(2);
  });

  it('refuses --stages: a round is a probe, not a load shape', async () => {
    const r = await runCliInProcess(
      ['watch', '--rounds', '1', '--stages', '1s:2', '--store', join(dir, 's.db')],
      {
        cwd: dir,
      },
    );
    expect(r.code).toBe(ExitCode.USAGE);
    expect(r.stderr).toContain('--stages');
    expect(r.stderr).toContain('goodput run --stages');
  });

  it('refuses a daily budget it cannot bound: dataset sessions, rounds set by --duration alone', async () => {
    const file = join(dir, 'one.jsonl');
    writeFileSync(file, `${JSON.stringify({ prompt: 'Name a colour.' })}\n`);
    const r = await runCliInProcess(
      ['watch', '--rounds', '1', '--dataset', file, '--sessions', '2', '--daily-token-budget', '1000'],
      { cwd: dir },
    );
    expect(r.code).toBe(ExitCode.USAGE);
    expect(r.stderr).toContain('--daily-token-budget with --dataset');
    expect(r.stderr).toContain('hint: give --requests N');
    // A round set by --duration alone could send any number of requests.
    const timed = await runCliInProcess(
      ['watch', '--rounds', '1', '--duration', '2s', '--daily-token-budget', '1000'],
      { cwd: dir },
    );
    expect(timed.code).toBe(ExitCode.USAGE);
    expect(timed.stderr).toContain('--daily-token-budget needs --requests');
  });
});
