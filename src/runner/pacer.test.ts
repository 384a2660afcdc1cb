import { afterEach, describe, expect, it } from 'vitest';
import { monotonicMs, Pacer } from './pacer.js';
import { RunClock } from './timer.js';

const pacers: Pacer[] = [];
afterEach(() => {
  for (const p of pacers.splice(0)) p.close();
});

async function onlinePacer(): Promise<Pacer> {
  const pacer = new Pacer();
  pacers.push(pacer);
  const until = Date.now() + 5_000;
  while (!pacer.ready) {
    if (Date.now() > until) throw new Error('pacer thread did not start');
    await new Promise((r) => setTimeout(r, 5));
  }
  return pacer;
}

describe('Pacer', () => {
  it('wakes at sub-millisecond instants, never before them', async () => {
    const pacer = await onlinePacer();
    const late: number[] = [];
    for (let i = 0; i < 200; i++) {
      const at = monotonicMs() + 0.2 + (i % 10) * 0.1;
      expect(await pacer.wake(at)).toBe(true);
      const now = monotonicMs();
      expect(now).toBeGreaterThanOrEqual(at);
      late.push(now - at);
    }
    late.sort((a, b) => a - b);
    // Loose: a loaded machine delays threads; a pacer on whole-millisecond timers would show 0.5+ ms.
    expect(late[100]).toBeLessThan(5);
  });

  it('wakes several waiters in the order of their instants, whatever order they asked in', async () => {
    const pacer = await onlinePacer();
    const base = monotonicMs() + 5;
    const order: number[] = [];
    await Promise.all([3, 1, 4, 0, 2].map((k) => pacer.wake(base + k * 2).then(() => order.push(k))));
    expect(order).toEqual([0, 1, 2, 3, 4]);
  });

  it('an aborted wait returns false at once and the others still wake', async () => {
    const pacer = await onlinePacer();
    const stop = new AbortController();
    const t0 = monotonicMs();
    const long = pacer.wake(t0 + 60_000, stop.signal);
    const short = pacer.wake(t0 + 20);
    setTimeout(() => stop.abort(), 5);
    expect(await long).toBe(false);
    expect(monotonicMs() - t0).toBeLessThan(10_000);
    expect(await short).toBe(true);
    expect(monotonicMs()).toBeGreaterThanOrEqual(t0 + 20);
  });

  it('an idle pacer does not hold the process open; a pending wait does', async () => {
    const ports = () => process.getActiveResourcesInfo().filter((r) => r === 'MessagePort').length;
    const before = ports();
    const pacer = await onlinePacer();
    expect(ports()).toBe(before);
    const wait = pacer.wake(monotonicMs() + 50);
    expect(ports()).toBe(before + 1);
    await wait;
    expect(ports()).toBe(before);
  });

  it('close releases pending waits', async () => {
    const pacer = await onlinePacer();
    const pending = pacer.wake(monotonicMs() + 60_000);
    pacer.close();
    expect(await pending).toBe(true);
    expect(pacer.ready).toBe(false);
  });
});

describe('RunClock.sleepUntil', () => {
  it('never returns before the instant, with or without the pacer online', async () => {
    const clock = new RunClock();
    for (let i = 0; i < 300; i++) {
      const target = clock.now() + (i % 7) * 0.3;
      expect(await clock.sleepUntil(target)).toBe(true);
      expect(clock.now()).toBeGreaterThanOrEqual(target);
    }
  });
});
