/**
 * Process groups of the servers an experiment starts. Each server leads a group of its own
 * (spawned detached), so that stopping it reaches every process it started (vLLM's engine
 * and worker processes too): the stop signal to the group, a grace period, then SIGKILL to the
 * group. Every live group is also SIGKILLed synchronously when goodput exits by any path it
 * can see (an error, a second Ctrl-C that exits at once); SIGKILL of goodput itself is left
 * to the pid file (pid-file.ts).
 *
 * @module
 */

import { readFileSync } from 'node:fs';

/** Groups started and not yet seen gone. */
const live = new Set<number>();
let exitHookInstalled = false;

function killAllNow(): void {
  for (const pgid of live) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  live.clear();
}

/** Remembers a group so that goodput's exit kills it if nothing stopped it before. */
export function trackGroup(pgid: number): void {
  live.add(pgid);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', killAllNow);
  }
}

export function untrackGroup(pgid: number): void {
  live.delete(pgid);
}

/** True while any process of the group exists (EPERM: it exists, owned by someone else). */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** True while the process exists. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Waits until the group is gone or `ms` have passed; true when gone. */
async function waitGone(pgid: number, ms: number): Promise<boolean> {
  const until = performance.now() + ms;
  for (;;) {
    if (!groupAlive(pgid)) return true;
    if (performance.now() >= until) return false;
    await sleep(Math.min(50, Math.max(1, until - performance.now())));
  }
}

/**
 * Stops a process group: `signal` to the whole group, up to `graceMs` for it to go, then
 * SIGKILL to the group. Returns how it ended ('gone' before any signal, 'signal', 'killed').
 */
export async function stopGroup(
  pgid: number,
  signal: NodeJS.Signals,
  graceMs: number,
): Promise<'gone' | 'signal' | 'killed'> {
  if (!groupAlive(pgid)) {
    untrackGroup(pgid);
    return 'gone';
  }
  try {
    process.kill(-pgid, signal);
  } catch {
    // gone meanwhile
  }
  if (await waitGone(pgid, graceMs)) {
    untrackGroup(pgid);
    return 'signal';
  }
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // gone meanwhile
  }
  await waitGone(pgid, 5_000);
  untrackGroup(pgid);
  return 'killed';
}

/** A process's start time in clock ticks since boot (Linux /proc), to tell a reused pid; undefined elsewhere. */
export function processStartTime(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 22; the command (field 2) is in parentheses and may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[19]);
    return Number.isFinite(ticks) ? ticks : undefined;
  } catch {
    return undefined;
  }
}

/** A process's argv (Linux /proc); undefined when it cannot be read. */
export function processArgv(pid: number): string[] | undefined {
  try {
    const raw = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return raw.split('\0').filter((s, i, all) => s !== '' || i < all.length - 1);
  } catch {
    return undefined;
  }
}
