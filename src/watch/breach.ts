/**
 * Runs the `--on-breach` command when the rollback rule triggers: through the shell, with the
 * evidence as JSON on stdin and in GOODPUT_BREACH_* environment variables. The command gets
 * the watch's environment minus every variable that holds an API key (GOODPUT_API_KEY,
 * OPENAI_API_KEY and each target's key variable) or a secret header value (--header 'K: env:NAME'):
 * a rollback hook has no business with them.
 *
 * @module
 */

import { spawn } from 'node:child_process';

/** What the breach command receives. */
export interface BreachEvidence {
  schemaVersion: 1;
  kind: 'goodput.breach';
  target: string;
  model: string;
  /** ADR id when the rule came from an ADR. */
  adrId?: string;
  /** The rule as written, e.g. "p99(ttft)>500 for 5 windows". */
  rule: string;
  condition: string;
  /** Consecutive bad windows required (and found). */
  windows: number;
  /** The bad windows: round number, start (ISO) and the value read (ms for latencies). */
  evidence: Array<{ round: number; startedAt: string; value?: number }>;
  /** First window start and last window start (ISO). */
  window: { from: string; to: string };
  triggeredAt: string;
}

/** Environment variables the breach command receives (besides the filtered parent environment). */
export function breachEnv(e: BreachEvidence): Record<string, string> {
  const env: Record<string, string> = {
    GOODPUT_BREACH_TARGET: e.target,
    GOODPUT_BREACH_MODEL: e.model,
    GOODPUT_BREACH_RULE: e.rule,
    GOODPUT_BREACH_CONDITION: e.condition,
    GOODPUT_BREACH_WINDOWS: String(e.windows),
    GOODPUT_BREACH_WINDOW_FROM: e.window.from,
    GOODPUT_BREACH_WINDOW_TO: e.window.to,
    GOODPUT_BREACH_VALUES: e.evidence.map((w) => (w.value === undefined ? 'NaN' : String(w.value))).join(','),
    GOODPUT_BREACH_JSON: JSON.stringify(e),
  };
  if (e.adrId !== undefined) env.GOODPUT_BREACH_ADR_ID = e.adrId;
  return env;
}

/** The environment without key-holding variables, nor any variable that holds a secret header value. */
export function withoutKeys(
  env: Record<string, string | undefined>,
  keyVars: readonly string[],
  secrets: readonly string[] = [],
): Record<string, string> {
  const drop = new Set(['GOODPUT_API_KEY', 'OPENAI_API_KEY', ...keyVars]);
  const secret = new Set(secrets);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env))
    if (v !== undefined && !drop.has(k) && !secret.has(v.trim())) out[k] = v;
  return out;
}

/**
 * Runs `command` through the shell with the evidence; resolves with its exit code (or -1 when
 * it could not start, 124 after `timeoutMs`). Its stdout and stderr go to `log`.
 */
export function runBreachCommand(
  command: string,
  evidence: BreachEvidence,
  opts: { env: Record<string, string>; cwd: string; log: (line: string) => void; timeoutMs?: number },
): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(command, {
      shell: true,
      cwd: opts.cwd,
      env: { ...opts.env, ...breachEnv(evidence) },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const timer = setTimeout(() => child.kill('SIGTERM'), opts.timeoutMs ?? 60_000);
    const relay = (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n'))
        if (line.trim() !== '') opts.log(`on-breach: ${line}`);
    };
    child.stdout.on('data', relay);
    child.stderr.on('data', relay);
    child.stdin.on('error', () => undefined);
    child.stdin.end(`${JSON.stringify(evidence)}\n`);
    child.on('error', (e) => {
      clearTimeout(timer);
      opts.log(`on-breach: could not start '${command}': ${e.message}`);
      resolve(-1);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve(code ?? (signal === 'SIGTERM' ? 124 : 1));
    });
  });
}
