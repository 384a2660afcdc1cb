/**
 * The pid file of the server an experiment runs (`server.pid.json` in the experiment folder):
 * written before the server starts and completed with its pid as soon as it is spawned, removed
 * once it is stopped. SIGKILL of goodput cannot be caught, so the next start of the experiment
 * (and `--resume`) sweeps it: a group still alive whose leader is the recorded command (same
 * argv, same start time) is stopped, and the user is told.
 *
 * @module
 */

import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { groupAlive, processAlive, processArgv, processStartTime, stopGroup } from './process-group.js';

export const PID_FILE = 'server.pid.json';

export interface PidRecord {
  schemaVersion: 1;
  configuration: string;
  argv: string[];
  /** Absent until spawned. */
  pid?: number;
  pgid?: number;
  /** The leader's start time in clock ticks since boot (Linux), to tell a reused pid. */
  startTime?: number;
  startedAt: string;
  stopSignal: NodeJS.Signals;
  graceMs: number;
}

export function pidFilePath(dir: string): string {
  return join(dir, PID_FILE);
}

/** Writes the record atomically (temporary file, rename). */
export function writePidFile(dir: string, record: PidRecord): void {
  const path = pidFilePath(dir);
  const tmp = `${path}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(record)}\n`);
  renameSync(tmp, path);
}

export function removePidFile(dir: string): void {
  rmSync(pidFilePath(dir), { force: true });
}

function readPidFile(dir: string): PidRecord | undefined {
  const path = pidFilePath(dir);
  if (!existsSync(path)) return undefined;
  try {
    const r = JSON.parse(readFileSync(path, 'utf8').slice(0, 64 * 1024)) as PidRecord;
    return r && Array.isArray(r.argv) ? r : undefined;
  } catch {
    return undefined;
  }
}

function sameArgv(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((s, i) => s === b[i]);
}

/**
 * Sweeps the pid file a killed experiment left: stops its server's process group when it is
 * still ours, and returns what it did as a sentence for the user (undefined when there was
 * nothing to sweep).
 */
export async function sweepPidFile(dir: string): Promise<string | undefined> {
  const path = pidFilePath(dir);
  if (!existsSync(path)) return undefined;
  const r = readPidFile(dir);
  if (!r || r.pid === undefined || r.pgid === undefined) {
    removePidFile(dir);
    return r
      ? `pid file ${path}: the server of ${r.configuration} had not been spawned; removed`
      : `pid file ${path} was unreadable; removed`;
  }
  const what = `the server of ${r.configuration} (pid ${r.pid}, ${r.argv.join(' ').slice(0, 120)})`;
  if (processAlive(r.pid)) {
    const argv = processArgv(r.pid);
    const start = processStartTime(r.pid);
    const ours =
      argv !== undefined &&
      sameArgv(argv, r.argv) &&
      (r.startTime === undefined || start === undefined || start === r.startTime);
    if (!ours) {
      removePidFile(dir);
      return `pid ${r.pid} of the pid file is now another process (${argv === undefined ? 'its command cannot be read' : 'another command'}): left alone; pid file removed`;
    }
  } else if (!groupAlive(r.pgid)) {
    removePidFile(dir);
    return `${what}, left by an earlier goodput, is no longer running; pid file removed`;
  }
  // The leader is ours, or gone with members of its group left (a group id is never reused
  // while the group exists): stop the whole group.
  const how = await stopGroup(r.pgid, r.stopSignal ?? 'SIGTERM', r.graceMs ?? 10_000);
  removePidFile(dir);
  return `stopped ${what}, left running by an earlier goodput that was killed (${how === 'killed' ? 'SIGKILL after the grace period' : r.stopSignal})`;
}
