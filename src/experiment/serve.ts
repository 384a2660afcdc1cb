/**
 * Starting a configuration's server from its serve template: a free port, the template's
 * placeholders filled, the pid file written, the command spawned leading a process group of
 * its own with stdout and stderr appended to the configuration's log, then its health URL
 * polled (bounded) until it answers 200. A server that exits early, never becomes healthy, or
 * cannot be spawned is a {@link ServeFailure}: only its configuration fails.
 *
 * @module
 */

import { spawn } from 'node:child_process';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { createServer } from 'node:net';
import { request } from 'undici';
import type { ServeParamValue } from '../types.js';
import { removePidFile, writePidFile } from './pid-file.js';
import { processStartTime, stopGroup, trackGroup } from './process-group.js';
import { sleepUnlessAborted as sleep } from './sleep.js';
import { substitute } from './template.js';
import type { ServeTemplate } from './types.js';

/** Why a server did not come up: recorded as the configuration's failure. */
export class ServeFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly hint: string,
    readonly logTail?: string,
  ) {
    super(message);
    this.name = 'ServeFailure';
  }
}

export interface RunningServer {
  pid: number;
  port: number;
  /** Base URL the runs use. */
  url: string;
  argv: string[];
  health: string;
  /** Milliseconds from spawn to the first healthy answer. */
  startupMs: number;
  /** True once the process has exited. */
  exited(): boolean;
  stop(): Promise<void>;
}

/** A port free on 127.0.0.1 now (the OS picks it). */
export function pickFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const address = s.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      s.close(() => resolve(port));
    });
  });
}

/** The last lines of a log file (at most 4 KiB of it). */
export function logTail(path: string, lines = 20): string {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const size = fstatSync(fd).size;
    const take = Math.min(size, 4096);
    const buf = Buffer.alloc(take);
    readSync(fd, buf, 0, take, size - take);
    return buf
      .toString('utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .slice(-lines)
      .join('\n');
  } catch {
    return '';
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The fix a log suggests for a server that exited early. */
function hintFromLog(tail: string, logPath: string): string {
  if (/EADDRINUSE|address already in use|cannot listen/i.test(tail))
    return `the port is in use: let goodput pick it ({port} in the serve command), or stop what listens there; log: ${logPath}`;
  if (/unknown option|unrecognized argument|invalid choice|E_USAGE|usage:/i.test(tail))
    return `a flag of the serve command is wrong (see the log's last lines): fix the plan's serve: or params:; log: ${logPath}`;
  if (/out of memory|CUDA error|OOM/i.test(tail))
    return `the server ran out of GPU memory: lower gpu-memory-utilization or max-num-seqs; log: ${logPath}`;
  return `see the server's log: ${logPath}`;
}

async function healthy(url: string, within: number, signal?: AbortSignal): Promise<boolean> {
  const timeoutMs = Math.max(1, Math.round(within));
  const deadline = AbortSignal.timeout(timeoutMs);
  try {
    const res = await request(url, {
      method: 'GET',
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      signal: signal ? AbortSignal.any([deadline, signal]) : deadline,
    });
    await res.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
    return res.statusCode === 200;
  } catch {
    return false;
  }
}

export interface StartServerOptions {
  configuration: string;
  template: ServeTemplate;
  params: Record<string, ServeParamValue>;
  /** Experiment folder (pid file) and the configuration's log file. */
  dir: string;
  logPath: string;
  signal?: AbortSignal;
  /** Sees the pid as soon as the server is spawned (before its health answers). */
  onSpawn?: (pid: number) => void;
  /** Sees how the server was stopped (after a failed start too). */
  onStop?: (how: 'gone' | 'signal' | 'killed', ms: number) => void;
  /** Sees the argv and port before the spawn (recorded in experiment.json). */
  onCommand?: (argv: string[], port: number, health: string, url: string) => void;
}

/** Starts the server and waits for its health; see the module comment. */
export async function startServer(opts: StartServerOptions): Promise<RunningServer> {
  const t = opts.template;
  const port = await pickFreePort();
  const values = { ...opts.params, port };
  const argv = t.argv.map((a, i) => substitute(a, values, `serve.command[${i}]`));
  const health = substitute(t.health, values, 'serve.health');
  const url = substitute(t.url, values, 'serve.url');
  opts.onCommand?.(argv, port, health, url);
  const base = {
    schemaVersion: 1 as const,
    configuration: opts.configuration,
    argv,
    startedAt: new Date().toISOString(),
    stopSignal: t.stopSignal,
    graceMs: t.graceMs,
  };
  writePidFile(opts.dir, base);
  const log = openSync(opts.logPath, 'a');
  let child: ReturnType<typeof spawn>;
  try {
    child = spawn(argv[0]!, argv.slice(1), {
      cwd: t.cwd,
      env: { ...process.env, ...t.env },
      detached: true,
      stdio: ['ignore', log, log],
    });
  } finally {
    closeSync(log);
  }
  const spawnError = new Promise<Error>((resolve) => child.once('error', resolve));
  const pid = child.pid;
  if (pid === undefined) {
    const e = await spawnError;
    removePidFile(opts.dir);
    const code = (e as NodeJS.ErrnoException).code;
    throw new ServeFailure(
      'E_SERVE_SPAWN',
      `cannot start ${argv[0]}: ${code ?? e.message}`,
      code === 'ENOENT'
        ? `${argv[0]} is not found: give its full path, or fix PATH (or cwd: ${t.cwd})`
        : `check that ${argv[0]} can be run from ${t.cwd}`,
    );
  }
  writePidFile(opts.dir, { ...base, pid, pgid: pid, ...startTimeOf(pid) });
  trackGroup(pid);
  opts.onSpawn?.(pid);
  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  const exited = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      exit = { code, signal };
      resolve();
    }),
  );
  let stopped: Promise<void> | undefined;
  const stop = () => {
    stopped ??= (async () => {
      const s0 = performance.now();
      const how = await stopGroup(pid, t.stopSignal, t.graceMs);
      removePidFile(opts.dir);
      opts.onStop?.(how, performance.now() - s0);
    })();
    return stopped;
  };
  const t0 = performance.now();
  const deadline = t0 + t.startupTimeoutMs;
  try {
    for (;;) {
      if (opts.signal?.aborted)
        throw new ServeFailure(
          'E_INTERRUPTED',
          'stopped while the server was starting',
          'run again with --resume',
        );
      if (exit) {
        const tail = logTail(opts.logPath);
        throw new ServeFailure(
          'E_SERVE_EXITED',
          `the server exited (${exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`}) before its health URL ${health} answered`,
          hintFromLog(tail, opts.logPath),
          tail,
        );
      }
      const left = deadline - performance.now();
      if (left <= 0) {
        throw new ServeFailure(
          'E_SERVE_TIMEOUT',
          `the server did not answer 200 at ${health} within ${t.startupTimeoutMs / 1000} s`,
          `raise startup_timeout if it is still loading, or check health: (default http://127.0.0.1:{port}/health) and that the command listens on {port}; log: ${opts.logPath}`,
          logTail(opts.logPath),
        );
      }
      if (await healthy(health, Math.min(2000, left), opts.signal)) break;
      await Promise.race([
        sleep(Math.min(200, Math.max(1, deadline - performance.now())), opts.signal),
        exited,
      ]);
    }
  } catch (e) {
    await stop();
    throw e;
  }
  return {
    pid,
    port,
    url,
    argv,
    health,
    startupMs: performance.now() - t0,
    exited: () => exit !== undefined,
    stop,
  };
}

function startTimeOf(pid: number): { startTime?: number } {
  const s = processStartTime(pid);
  return s === undefined ? {} : { startTime: s };
}
