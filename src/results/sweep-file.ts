/**
 * sweep.json read back: validated against its schema (checked at compile time to be the
 * writer's type), so a damaged, foreign or newer file is refused naming the field, never
 * drawn from guesses.
 *
 * @module
 */

import { z } from 'zod';
import { GoodputError } from '../errors.js';
import { SCHEMA_VERSION, type SweepResult } from '../types.js';
import { SWEEP_FILE } from './files.js';
import { readResultFile } from './read-file.js';
import { findingSchema, sloSchema } from './schema.js';

export { SWEEP_FILE };

import { describeIssues, parseJsonFile, refuseNewerSchema, validateValue } from './validate.js';

const num = z.number();
const int = z.number().int().nonnegative();
const mode = z.enum(['concurrency', 'rate']);

const pointSchema = z.object({
  phase: z.enum(['step', 'synchronous', 'throughput', 'bisect']),
  mode,
  load: num,
  dir: z.string(),
  runId: z.string(),
  completed: int,
  failed: int,
  errorRate: num,
  requestThroughput: num,
  outputThroughput: num,
  meanTtftMs: num,
  p99TtftMs: num,
  meanTpotMs: num,
  p99TpotMs: num.optional(),
  p50UserTps: num.optional(),
  sessionThroughput: num.optional(),
  meanE2elMs: num,
  p99E2elMs: num,
  attainment: num,
  requestGoodput: num,
  passes: z.boolean(),
  caveats: z
    .array(z.object({ id: z.string(), severity: z.enum(['warn', 'info']), text: z.string() }))
    .optional(),
});

export const SweepResultSchema = z.object({
  schemaVersion: z.literal(SCHEMA_VERSION),
  kind: z.literal('goodput.sweep'),
  mode,
  unit: z.literal('sessions').optional(),
  trace: z.object({ path: z.string(), meanRate: num.optional() }).optional(),
  startedAt: z.string(),
  slo: sloSchema,
  minAttainment: num,
  points: z.array(pointSchema),
  anchors: z.array(pointSchema).optional(),
  knee: z
    .object({
      load: num,
      mode,
      requestThroughput: num,
      meanE2elMs: num,
      method: z.literal('kneedle: max of normalised throughput minus normalised mean E2EL'),
      caveats: z.array(z.string()).optional(),
    })
    .optional(),
  capacity: z
    .object({
      mode,
      load: num,
      attainment: num,
      firstFailingLoad: num.optional(),
      resolved: z.boolean(),
      caveats: z.array(z.string()).optional(),
    })
    .optional(),
  stoppedEarly: z.string().optional(),
  diagnosis: z.array(findingSchema).optional(),
  diagnosisOf: z.string().optional(),
  interrupted: z.boolean(),
});

// Compile-time: the schema infers exactly the writer's type (see schema.ts).
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const sameType: Same<z.infer<typeof SweepResultSchema>, SweepResult> = true;
void sameType;

const RERUN = 'run the sweep again';

/** Validates a parsed sweep file; E_RESULT names the file, the field and what was found. */
export function parseSweepResult(value: unknown, path: string): SweepResult {
  refuseNewerSchema(value, path, ['goodput.sweep']);
  const hint = 'pass a sweep directory written by goodput sweep --out DIR (it holds sweep.json)';
  if ((value as { kind?: unknown } | null)?.kind === 'goodput.sweep') {
    // A sweep file that fails its schema is damaged, not foreign: name the field.
    const parsed = SweepResultSchema.safeParse(value);
    if (parsed.success) return parsed.data;
    throw new GoodputError(
      'E_RESULT',
      `${path} is not a valid goodput sweep file: ${describeIssues(parsed.error, value)}`,
      `the file is damaged or was edited: ${RERUN}`,
    );
  }
  return validateValue(SweepResultSchema, value, path, 'a goodput sweep file', hint);
}

/** Reads and validates a sweep.json. */
export async function readSweepResult(path: string): Promise<SweepResult> {
  const bytes = await readResultFile(path);
  if (bytes === undefined) {
    throw new GoodputError(
      'E_RESULT',
      `cannot read ${path}: ENOENT (no such file)`,
      'pass a sweep directory written by goodput sweep --out DIR',
    );
  }
  return parseSweepResult(parseJsonFile(bytes.toString('utf8'), path, RERUN), path);
}
