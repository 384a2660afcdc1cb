/**
 * watch end to end against the embedded engine over loopback: latency switched mid-run, the
 * rollback command runs once after exactly the configured number of bad windows; a failing
 * target is recorded and watching goes on; a restart resumes numbering and the streak; a
 * blocked prober marks its round invalid; the key never reaches the store or the hook.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { type SimServer, startSim } from '../sim/index.js';
import { WatchStore } from '../store/index.js';
import { parseRollbackFlag } from './rollback.js';
import { runWatch, type WatchConfig } from './watcher.js';

const CANARY = 'key-canary-7f3a9c1e5b2d4f6a8e0c';
let sim: SimServer;
let dir: string;

beforeEach(async () => {
  sim = await startSim({ host: '127.0.0.1', port: 0, apiKey: CANARY, seed: 3 });
  dir = mkdtempSync(join(tmpdir(), 'goodput-watch-'));
});
afterEach(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

function config(over: Partial<WatchConfig> = {}): WatchConfig {
  return {
    targets: [
      {
        name: 'sim',
        url: sim.url,
        model: sim.model,
        apiKey: CANARY,
        keyEnv: 'SIM_KEY',
        slo: { ttftMs: 100 },
      },
    ],
    api: 'chat',
    sampling: { temperature: 0, maxTokens: 6, ignoreEos: true },
    promptTokens: 32,
    load: { mode: 'closed', concurrency: 3, requests: 3, warmup: 0, timeoutMs: 10_000, maxRetries: 0 },
    seed: 1,
    everyMs: 200,
    jitter: 0,
    storePath: join(dir, 'goodput.db'),
    retainMs: 86_400_000,
    cooldownMs: 3_600_000,
    serverMetrics: { enabled: true },
    ...over,
  };
}

/** A breach hook that appends its stdin (the evidence) and two env variables to a file. */
function hook(out: string): string {
  const script = join(dir, 'hook.mjs');
  writeFileSync(
    script,
    `import { appendFileSync } from 'node:fs';
let s = ''; process.stdin.on('data', (c) => (s += c)); process.stdin.on('end', () => {
  appendFileSync(${JSON.stringify(out)}, JSON.stringify({ stdin: JSON.parse(s), adr: process.env.GOODPUT_BREACH_ADR_ID ?? null,
    values: process.env.GOODPUT_BREACH_VALUES, env: Object.values(process.env).join('\\n') }) + '\\n');
});`,
  );
  return `node ${JSON.stringify(script)}`;
}

describe('goodput watch', () => {
  test('a wall clock stepped back an hour after round 1 does not hold the next rounds back', async () => {
    const wall = Date.now.bind(Date);
    let stepped = false;
    const spy = vi.spyOn(Date, 'now').mockImplementation(() => wall() - (stepped ? 3_600_000 : 0));
    try {
      const started = performance.now();
      const result = await runWatch(config({ rounds: 3, everyMs: 500 }), {
        stderr: { write: () => undefined },
        cwd: dir,
        env: { SIM_KEY: CANARY },
        onRound: () => {
          stepped = true; // as NTP stepping the clock back, or a VM restored from a snapshot
        },
      });
      expect(result.rounds).toBe(3);
      // rounds 0.5 s apart: about a second and the rounds' own time, not an hour
      expect(performance.now() - started).toBeLessThan(8_000);
    } finally {
      spy.mockRestore();
    }
  }, 20_000);

  test('slowdown after round 3: rollback runs once, after exactly 3 bad windows', async () => {
    const out = join(dir, 'breaches.jsonl');
    const log: string[] = [];
    const rule = { ...parseRollbackFlag('p99(ttft)>100 for 3 windows'), adrId: 'ADR-20250102-001' };
    const seenByRound: number[] = [];
    const validByRound: boolean[] = [];
    const result = await runWatch(config({ rounds: 8, rule, onBreach: hook(out) }), {
      stderr: { write: (s: string) => log.push(s) },
      cwd: dir,
      env: { PATH: process.env.PATH, SIM_KEY: CANARY, GOODPUT_API_KEY: CANARY },
      onRound: (_t, r) => {
        // how many breaches the hook has recorded when each round is stored
        let n = 0;
        try {
          n = readFileSync(out, 'utf8').trim().split('\n').filter(Boolean).length;
        } catch {}
        seenByRound.push(n);
        validByRound.push(r.stored.valid);
        if (r.stored.round === 3) sim.setSlowdown(30);
      },
    });
    // A round the prober could not keep (a loaded machine) is invalid and does not count toward
    // the rule, so the bad windows are the valid rounds after the slowdown: on an idle machine
    // rounds 4, 5 and 6.
    const badWindows = [4, 5, 6, 7, 8].filter((round) => validByRound[round - 1]);
    expect(badWindows.length, 'too few valid rounds to judge the rule').toBeGreaterThanOrEqual(3);
    const firedAt = badWindows[2]!;
    expect(result).toEqual({ rounds: 8, rollbacks: 1 });
    // The hook ran after the third bad window, never before; once despite later rounds (cooldown).
    expect(seenByRound).toEqual(seenByRound.map((_, i) => (i + 1 >= firedAt ? 1 : 0)));
    const breaches = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(breaches).toHaveLength(1);
    const b = breaches[0];
    expect(b.adr).toBe('ADR-20250102-001');
    expect(b.stdin.evidence.map((w: { round: number }) => w.round)).toEqual(badWindows.slice(0, 3));
    for (const w of b.stdin.evidence) expect(w.value).toBeGreaterThan(100);
    expect(b.values.split(',').map(Number)).toEqual(b.stdin.evidence.map((w: { value: number }) => w.value));
    expect(b.env).not.toContain(CANARY);

    const store = WatchStore.open(join(dir, 'goodput.db'), { readonly: true });
    const rounds = store.rounds({ target: 'sim' });
    expect(rounds.map((r) => r.round)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    const before = rounds.slice(1, 3).map((r) => r.histograms.ttft.percentile(99));
    const after = rounds.slice(3).map((r) => r.histograms.ttft.percentile(99));
    expect(Math.max(...before)).toBeLessThan(100);
    expect(Math.min(...after)).toBeGreaterThan(100);
    // attainment (SLO ttft ≤ 100 ms) collapses with the slowdown
    expect(rounds.slice(3).every((r) => r.good === 0)).toBe(true);
    const rollbacks = store.rollbacks();
    expect(rollbacks).toHaveLength(1);
    expect(rollbacks[0]).toMatchObject({
      target: 'sim',
      round: firedAt,
      adrId: 'ADR-20250102-001',
      exitCode: 0,
    });
    store.close();
    expect(log.join('')).not.toContain(CANARY);
    // No key anywhere in the store file (dumped with better-sqlite3, every table and the raw bytes).
    const db = new Database(join(dir, 'goodput.db'), { readonly: true });
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type='table'").all() as {
      name: string;
    }[];
    const dump = tables.map((t) => JSON.stringify(db.prepare(`SELECT * FROM ${t.name}`).all())).join('\n');
    db.close();
    expect(dump).toContain('sim');
    expect(dump).not.toContain(CANARY);
    expect(readFileSync(join(dir, 'goodput.db')).includes(CANARY)).toBe(false);
  }, 30_000);

  test('a failing target is recorded with its error codes and watching goes on; restart resumes', async () => {
    const rule = parseRollbackFlag('p99(ttft)>5000 for 3 windows');
    await runWatch(config({ rounds: 2, rule, jitter: 0.2 }), {
      stderr: { write: () => undefined },
      cwd: dir,
      env: {},
      onRound: (_t, r) => {
        if (r.stored.round === 1) sim.setFailures({ serverError: 1 });
      },
    });
    // Restart: numbering and the bad-window streak (1 outage window so far) continue from the store.
    let store = WatchStore.open(join(dir, 'goodput.db'), { readonly: true });
    expect(store.loadState<{ rollback: { streak: unknown[] } }>('sim')?.rollback.streak).toHaveLength(1);
    store.close();
    const out = join(dir, 'breaches.jsonl');
    const second = await runWatch(config({ rounds: 2, rule, onBreach: hook(out) }), {
      stderr: { write: () => undefined },
      cwd: dir,
      env: { PATH: process.env.PATH },
    });
    expect(second.rollbacks).toBe(1);
    store = WatchStore.open(join(dir, 'goodput.db'), { readonly: true });
    const rounds = store.rounds();
    expect(rounds.map((r) => r.round)).toEqual([1, 2, 3, 4]);
    expect(rounds[0]!.failed).toBe(0);
    for (const r of rounds.slice(1)) {
      expect(r.completed).toBe(0);
      expect(r.errors.HTTP_SERVER_ERROR).toBe(3);
    }
    // The outage streak spanned the restart: rounds 2, 3, 4.
    const [b] = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(b.stdin.evidence.map((w: { round: number }) => w.round)).toEqual([2, 3, 4]);
    store.close();
  }, 30_000);

  test('a round in which the prober was blocked is invalid and does not count toward the rule', async () => {
    const rule = parseRollbackFlag('p99(ttft)>0 for 1 window');
    let blocking: NodeJS.Timeout | undefined;
    const result = await runWatch(config({ rounds: 3, rule, everyMs: 300 }), {
      stderr: { write: () => undefined },
      cwd: dir,
      env: {},
      onRound: (_t, r) => {
        if (r.stored.round === 1) {
          // Hog the prober's event loop: 120 ms busy every 130 ms while round 2 runs.
          blocking = setInterval(() => {
            const until = performance.now() + 120;
            while (performance.now() < until) {}
          }, 130);
        }
        if (r.stored.round === 2) clearInterval(blocking);
      },
    });
    clearInterval(blocking);
    const store = WatchStore.open(join(dir, 'goodput.db'), { readonly: true });
    const rounds = store.rounds();
    store.close();
    expect(rounds.map((r) => r.valid)).toEqual([true, false, true]);
    expect(rounds[1]!.invalidReason).toMatch(/prober|timer/);
    expect(rounds[1]!.proberLagMs).toBeGreaterThan(50);
    // round 1 triggered (any TTFT > 0); the cooldown holds; the invalid round never counted
    expect(result.rollbacks).toBe(1);
  }, 30_000);
});
