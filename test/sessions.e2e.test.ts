// runs alone: compares live turn latencies with and without prefix caching
/**
 * Multi-turn sessions end to end: a 3-turn synthetic session run against the embedded engine,
 * through a loopback proxy that keeps every request body. Turns 2 and 3 carry the earlier
 * user messages and the engine's own replies; the engine's prefix cache reuses the blocks of
 * the earlier prompt and reply, so later turns start faster than the first, and with prefix
 * caching off (`goodput sim --no-enable-prefix-caching`) they do not. Virtual time shows the
 * same effect on the engine's simulated clock.
 *
 * @module
 */

import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../src/errors.js';
import { collect, readRecords } from '../src/results/index.js';
import { type SimServer, startSim } from '../src/sim/index.js';
import type { RequestRecord, RunSummary } from '../src/types.js';
import { readRunSummary, runCliInProcess } from './helpers/cli.js';
import { recordingProxy } from './helpers/recording-proxy.js';

const closers: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const c of closers.splice(0)) await c();
});

/** Long first prompts and short follow-ups: the first turn's prefill dominates its TTFT. */
const SESSION_ARGS = [
  '--sessions',
  '2',
  '--turns',
  '3',
  '--prompt-tokens',
  '3000',
  '--turn-tokens',
  '32',
  '--max-tokens',
  '16',
  '--ignore-eos',
  '--requests',
  '18',
  '--seed',
  '3',
  '--json',
];

async function runSessions(
  args: string[],
): Promise<{ summary: RunSummary; records: RequestRecord[]; stderr: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'goodput-sessions-'));
  const out = join(dir, 'r');
  const { code, stdout, stderr } = await runCliInProcess(['run', ...args, '--out', out], { cwd: dir });
  expect(code, stderr).toBe(0);
  return { summary: JSON.parse(stdout) as RunSummary, records: await collect(readRecords(out)), stderr };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

function ttftByTurn(records: RequestRecord[]): { first: number; later: number } {
  const ttft = (r: RequestRecord) => r.firstTokenMs! - r.sentMs;
  const ok = records.filter((r) => !r.warmup && r.outcome === 'success');
  return {
    first: median(ok.filter((r) => r.turn === 1).map(ttft)),
    later: median(ok.filter((r) => (r.turn ?? 0) >= 2).map(ttft)),
  };
}

async function engine(enablePrefixCaching: boolean): Promise<SimServer> {
  const sim = await startSim({ seed: 1, slowdown: 2, engine: { enablePrefixCaching } });
  closers.push(() => sim.close());
  return sim;
}

describe('multi-turn sessions against the embedded engine', () => {
  it('turns 2 and 3 carry the earlier replies; prefix caching makes later turns start faster', async () => {
    const sim = await engine(true);
    const proxy = await recordingProxy(sim.url);
    closers.push(() => proxy.close());
    const { summary, records } = await runSessions([
      ...SESSION_ARGS,
      '--url',
      proxy.url,
      '--metrics-url',
      `${sim.url}/metrics`,
    ]);

    // Every record says its session and turn; sessions run turns 1, 2, 3 in order.
    expect(records).toHaveLength(18);
    const bySession = new Map<string, RequestRecord[]>();
    for (const r of records) bySession.set(r.sessionId!, [...(bySession.get(r.sessionId!) ?? []), r]);
    expect(bySession.size).toBe(6);
    for (const turns of bySession.values()) expect(turns.map((r) => r.turn)).toEqual([1, 2, 3]);

    // The bodies: turn t carries t user messages and the t−1 replies the engine actually sent.
    expect(proxy.bodies).toHaveLength(18);
    const replyByUserPrefix = new Map<string, string>();
    for (const [i, body] of proxy.bodies.entries())
      replyByUserPrefix.set(JSON.stringify(body.messages), proxy.replies[i]!);
    let checkedLater = 0;
    for (const body of proxy.bodies) {
      const m = body.messages;
      const users = m.filter((x) => x.role === 'user').length;
      const assistants = m.filter((x) => x.role === 'assistant');
      expect(assistants).toHaveLength(users - 1);
      if (users < 2) continue;
      checkedLater++;
      // The request before this turn was exactly this history up to its last user message;
      // the assistant message that follows it is what the engine streamed back for it.
      for (let k = 0; k < assistants.length; k++) {
        const cut = m.indexOf(assistants[k]!);
        const earlier = JSON.stringify(m.slice(0, cut));
        expect(replyByUserPrefix.has(earlier)).toBe(true);
        expect(assistants[k]!.content).toBe(replyByUserPrefix.get(earlier));
        expect(assistants[k]!.content.length).toBeGreaterThan(0);
      }
    }
    expect(checkedLater).toBe(12);

    // The server's prefix cache was hit, and later turns started faster than first ones.
    expect(summary.server?.prefixCacheHitRate ?? 0).toBeGreaterThan(0);
    const t = ttftByTurn(records);
    expect(t.later).toBeLessThan(t.first * 0.6);
  }, 60_000);

  it('with prefix caching off on the engine, later turns are not faster', async () => {
    const sim = await engine(false);
    const { records, summary } = await runSessions([...SESSION_ARGS, '--url', sim.url]);
    expect(summary.server?.prefixCacheHitRate ?? 0).toBe(0);
    const t = ttftByTurn(records);
    // Each later turn prefills the whole, longer history again. (The two sessions' first turns
    // prefill together and later turns mostly alone, so a later turn may be a little faster
    // without any cache; with the cache it takes under 0.6× the first.)
    expect(t.later).toBeGreaterThan(t.first * 0.75);
  }, 60_000);

  it('virtual time shows the same prefix-cache effect on the simulated clock', async () => {
    const { records, summary } = await runSessions([...SESSION_ARGS, '--time', 'virtual']);
    expect(summary.meta.target.timeMode).toBe('virtual');
    expect(records.map((r) => r.turn)).toContain(3);
    expect(summary.server?.prefixCacheHitRate ?? 0).toBeGreaterThan(0.3);
    const t = ttftByTurn(records);
    expect(t.later).toBeLessThan(t.first * 0.6);
  }, 60_000);
});

describe('session runs in ADRs and compare', () => {
  const VIRTUAL = [
    '--time',
    'virtual',
    '--sessions',
    '3',
    '--turns',
    '2-4',
    '--turn-tokens',
    '40',
    '--think-time',
    'exp:1s',
    '--prompt-tokens',
    '200',
    '--max-tokens',
    '20',
    '--requests',
    '24',
    '--quiet',
  ];

  it('an ADR records the session workload, so gate --adr reruns it identically', async () => {
    const work = await mkdtemp(join(tmpdir(), 'goodput-sessions-adr-'));
    const cli = (argv: string[]) => runCliInProcess(argv, { cwd: work });
    for (const name of ['base', 'cand']) {
      const r = await cli(['run', ...VIRTUAL, '--out', join(work, name)]);
      expect(r.code, r.stderr).toBe(ExitCode.OK);
    }
    const made = await cli([
      'adr',
      'new',
      '--title',
      'Sessions',
      '--baseline',
      'base',
      '--candidate',
      'cand',
      '--date',
      '2026-01-02',
    ]);
    expect(made.code, made.stderr).toBe(ExitCode.OK);
    const recorded = readRunSummary(join(work, 'cand'));
    expect(recorded.meta.workload.sessions).toEqual({
      turns: { min: 2, max: 4 },
      turnTokens: 40,
      thinkTime: { meanMs: 1000, dist: 'exponential' },
    });
    expect(recorded.meta.load.sessions).toEqual({ concurrency: 3 });
    const gated = await cli([
      'gate',
      '--adr',
      made.stdout.trim(),
      '--time',
      'virtual',
      '--out',
      join(work, 'gate'),
      '--quiet',
    ]);
    expect([ExitCode.OK, ExitCode.THRESHOLD_BREACH], gated.stderr).toContain(gated.code);
    const rerun = readRunSummary(join(work, 'gate'));
    expect(rerun.meta.workload).toEqual(recorded.meta.workload);
    expect(rerun.meta.load).toEqual(recorded.meta.load);
    // The same conversations: the same turns of the same sessions with the same prompt lengths.
    const shape = async (dir: string) =>
      (await collect(readRecords(join(work, dir))))
        .map((r) => `${r.sessionId}/${r.turn}/${r.promptTokens}`)
        .sort();
    expect(await shape('gate')).toEqual(await shape('cand'));
    expect(rerun.turns?.map((t) => t.turn)).toEqual(recorded.turns?.map((t) => t.turn));
  }, 120_000);

  it('compare refuses a session run against a single-turn one unless --allow-different, naming why', async () => {
    const work = await mkdtemp(join(tmpdir(), 'goodput-sessions-cmp-'));
    const cli = (argv: string[]) => runCliInProcess(argv, { cwd: work });
    const a = await cli(['run', ...VIRTUAL, '--out', join(work, 'sessions')]);
    expect(a.code, a.stderr).toBe(ExitCode.OK);
    const b = await cli([
      'run',
      '--time',
      'virtual',
      '--concurrency',
      '3',
      '--prompt-tokens',
      '200',
      '--max-tokens',
      '20',
      '--requests',
      '24',
      '--quiet',
      '--out',
      join(work, 'single'),
    ]);
    expect(b.code, b.stderr).toBe(ExitCode.OK);
    const refused = await cli(['compare', join(work, 'single'), join(work, 'sessions')]);
    expect(refused.code).toBe(ExitCode.USAGE);
    expect(refused.stderr).toMatch(/workload\.sessions/);
    expect(refused.stderr).toMatch(/load\.sessions/);
    const allowed = await cli(['compare', join(work, 'single'), join(work, 'sessions'), '--allow-different']);
    expect(allowed.code, allowed.stderr).not.toBe(ExitCode.USAGE);
    expect(`${allowed.stdout}${allowed.stderr}`).toMatch(/sessions/);
  }, 120_000);
});

describe('conversation datasets as sessions', () => {
  it('a ShareGPT file replays every turn of every conversation; a bad conversation exits 2 naming line and field', async () => {
    const work = await mkdtemp(join(tmpdir(), 'goodput-sessions-data-'));
    const cli = (argv: string[]) => runCliInProcess(argv, { cwd: work });
    const conversation = (n: number, turns: number) => ({
      id: `c${n}`,
      conversations: Array.from({ length: turns }, (_, t) => [
        { from: 'human', value: `Conversation ${n}, question ${t + 1}: how does paging help?` },
        { from: 'gpt', value: 'It keeps blocks small and reusable.' },
      ]).flat(),
    });
    await writeFile(
      join(work, 'chats.json'),
      JSON.stringify([conversation(1, 2), conversation(2, 4), conversation(3, 3)]),
    );
    const r = await cli([
      'run',
      '--time',
      'virtual',
      '--dataset',
      'chats.json',
      '--sessions',
      '1',
      '--requests',
      '9',
      '--out',
      'share',
      '--quiet',
    ]);
    expect(r.code, r.stderr).toBe(ExitCode.OK);
    const records = await collect(readRecords(join(work, 'share')));
    const turns = new Map<string, number>();
    for (const x of records) turns.set(x.sessionId!, Math.max(turns.get(x.sessionId!) ?? 0, x.turn!));
    // One user at a time: three whole conversations of 2, 4 and 3 turns (in the seeded order).
    expect([...turns.values()].sort()).toEqual([2, 3, 4]);
    const summary = readRunSummary(join(work, 'share'));
    expect(summary.turns?.map((t) => [t.turn, t.requests])).toEqual([
      [1, 3],
      [2, 3],
      [3, 2],
      [4, 1],
    ]);

    await writeFile(
      join(work, 'bad.jsonl'),
      '{"messages": [{"role": "user", "content": "hi"}]}\n{"messages": [{"role": "user", "content": 7}]}\n',
    );
    const bad = await cli([
      'run',
      '--time',
      'virtual',
      '--dataset',
      'bad.jsonl',
      '--sessions',
      '1',
      '--out',
      'bad',
      '--quiet',
    ]);
    expect(bad.code).toBe(ExitCode.USAGE);
    expect(bad.stderr).toMatch(/bad\.jsonl:2: field "messages\[0\]\.content": expected string, got number/);
  }, 60_000);
});
