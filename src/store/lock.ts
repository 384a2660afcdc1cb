/**
 * One writer per store: a watch takes `<store>.lock` (its pid, host and start time) before it
 * writes, and removes it when it closes. A second watch on the same store (another process, or
 * a second runWatch in this one) is refused with the writer's pid (two writers numbered their rounds 1, 1, 2, 2, … and mixed them); a lock left by
 * a process that is gone (SIGKILL, a reboot) is taken over, and said so.
 *
 * @module
 */

import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { GoodputError } from '../errors.js';

interface LockInfo {
  pid: number;
  host: string;
  since: string;
}

/** Whether a process of this machine is alive (EPERM: alive, another user's). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readLock(path: string): LockInfo | undefined {
  try {
    const info = JSON.parse(readFileSync(path, 'utf8').slice(0, 4096)) as LockInfo;
    return Number.isInteger(info.pid) ? info : undefined;
  } catch {
    return undefined;
  }
}

/** The lock files this process holds now. */
const HELD = new Set<string>();

/** A held store lock; `release` removes it (once). */
export interface StoreLock {
  path: string;
  /** Set when a stale lock (its process gone) was taken over. */
  tookOver?: LockInfo;
  release(): void;
}

/**
 * Takes the store's write lock, or throws E_USAGE naming the watch that holds it. A lock of a
 * process that no longer runs (same host), or an unreadable one, is taken over.
 */
export function lockStore(storePath: string): StoreLock {
  const path = `${storePath}.lock`;
  const mine: LockInfo = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
  let tookOver: LockInfo | undefined;
  for (let attempt = 0; attempt < 2; attempt++) {
    let fd: number;
    try {
      fd = openSync(path, 'wx', 0o644);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new GoodputError(
          'E_USAGE',
          `cannot take the store's lock ${path} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
          'give --store a path in a folder this user may write',
        );
      }
      const holder = readLock(path);
      // Our own pid holds it either through this process (a second open here: refused) or from a
      // former life with the same pid (a container restarted in its pod: pid 1 again, same host).
      const ours = holder?.pid === process.pid && holder.host === mine.host;
      const live = holder && (ours ? HELD.has(path) : holder.host !== mine.host || alive(holder.pid));
      if (holder && live) {
        throw new GoodputError(
          'E_USAGE',
          `the store ${storePath} is being written by another goodput watch (pid ${holder.pid} on ${holder.host}, since ${holder.since})`,
          'one watch writes a store: stop that watch, or give this one another --store (several targets can share one watch: --targets FILE)',
        );
      }
      tookOver = holder;
      rmSync(path, { force: true });
      continue;
    }
    writeSync(fd, JSON.stringify(mine));
    closeSync(fd);
    HELD.add(path);
    let released = false;
    const lock: StoreLock = {
      path,
      release() {
        if (released) return;
        released = true;
        HELD.delete(path);
        if (readLock(path)?.pid === process.pid) rmSync(path, { force: true });
      },
    };
    if (tookOver) lock.tookOver = tookOver;
    return lock;
  }
  throw new GoodputError(
    'E_USAGE',
    `cannot take the store's lock ${path}`,
    'remove it if no goodput watch runs',
  );
}
