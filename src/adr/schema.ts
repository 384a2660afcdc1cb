/**
 * The machine part of an ADR: its YAML front matter, validated with zod. Errors name the
 * field by its path (e.g. `gate.ttft_p99_ms`).
 *
 * ```yaml
 * schemaVersion: 1
 * id: ADR-20250102-001
 * title: Enable chunked prefill for long prompts
 * date: 2025-01-02
 * status: accepted            # proposed | accepted | superseded
 * workload:                   # everything needed to rerun the same load (RunMeta fields)
 *   model: …; seed: 1; sampling: {…}; workload: {…}; load: {…}; slo: {…}
 * gate:                       # thresholds for `goodput gate --adr`
 *   ttft_p99_ms: 350
 *   tpot_p99_ms: 35
 *   request_goodput_min: 4.2  # minimum requests/s that met every SLO
 *   attainment_min: 0.9       # minimum SLO attainment
 *   thresholds: ['p50(ttft)<120']
 * rules:                      # serving parameters that must hold (`adr enforce`)
 *   - flag: --enable-chunked-prefill           # present
 *   - flag: --max-num-batched-tokens           # present with this value
 *     equals: "2048"
 *   - flag: --enforce-eager                    # must not be set
 *     absent: true
 * rollback: { metric: ttft_p99_ms, above: 500, for: 5m }
 * ```
 *
 * @module
 */

import { z } from 'zod';
import type { GateSpec } from '../gate/index.js';
import { ADR_GATE_KEYS, METRICS, metricByAdrName } from '../metrics/index.js';
// The schema file itself: results/index.ts leaves the schemas out (a run writes without zod).
import { RunMetaSchema } from '../results/schema.js';
import { didYouMean } from '../util/index.js';

export const ADR_STATUSES = ['proposed', 'accepted', 'superseded'] as const;
export type AdrStatus = (typeof ADR_STATUSES)[number];

const flagName = z
  .string()
  .regex(/^--?[A-Za-z0-9][A-Za-z0-9._-]*$/, 'a flag such as --max-num-batched-tokens');

export const RuleSchema = z
  .strictObject({
    flag: flagName,
    equals: z.union([z.string(), z.number(), z.boolean()]).optional(),
    absent: z.boolean().optional(),
    why: z.string().optional(),
  })
  .refine((r) => !(r.absent && r.equals !== undefined), {
    message: 'a rule cannot both require a value and absence',
  });
export type AdrRule = z.infer<typeof RuleSchema>;

/**
 * The `gate:` block: one optional limit per catalogue metric under its ADR gate key
 * (`ttft_p99_ms` is a maximum in ms, `attainment_min` / `goodput_min` a minimum ratio, …),
 * free `thresholds`, and the informational `headroom`. Unknown keys are errors.
 */
export const GateSchema: z.ZodType<GateSpec> = z.strictObject({
  ...Object.fromEntries(
    METRICS.map((m) => {
      const limit =
        m.unit === 'ratio'
          ? z.number().min(0).max(1)
          : m.unit === 'ms'
            ? z.number().positive()
            : z.number().min(0);
      return [m.adrGateKey, limit.optional()];
    }),
  ),
  thresholds: z.array(z.string()).optional(),
  /** How the limits were derived (informational). */
  headroom: z.number().min(0).optional(),
}) as unknown as z.ZodType<GateSpec>;
export type AdrGate = GateSpec;

/** ADR metric names (rollback.metric): `ttft_p99_ms`, `attainment`, … from the catalogue. */
export const ADR_METRIC_NAMES: readonly string[] = METRICS.map((m) => m.adrMetric);

export const RollbackSchema = z
  .strictObject({
    metric: z.string().refine((m) => metricByAdrName(m) !== undefined, {
      error: (issue) =>
        `unknown metric '${String(issue.input)}'${didYouMean(String(issue.input), ADR_METRIC_NAMES)}; use a catalogue name such as ttft_p99_ms, tpot_p99_ms, e2el_p99_ms, attainment or error_rate`,
    }),
    above: z.number().optional(),
    below: z.number().optional(),
    for: z.string().regex(/^\d+(\.\d+)?(ms|s|m|h)$/, 'a duration such as 5m'),
  })
  .refine((r) => r.above !== undefined || r.below !== undefined, { message: 'needs above or below' });
export type AdrRollback = z.infer<typeof RollbackSchema>;

/** The RunMeta fields that make a load reproducible; inner objects are RunMeta's own shapes. */
export const AdrWorkloadSchema = z.strictObject({
  model: z.string(),
  seed: z.number().int(),
  sampling: RunMetaSchema.shape.sampling,
  workload: RunMetaSchema.shape.workload,
  load: RunMetaSchema.shape.load,
  slo: RunMetaSchema.shape.slo,
  target: z.looseObject({ embedded: z.boolean() }).optional(),
});
export type AdrWorkload = z.infer<typeof AdrWorkloadSchema>;

/** The experiment an ADR was written from (`adr new --experiment`). */
export const ExperimentRefSchema = z.strictObject({
  path: z.string(),
  name: z.string(),
  /** The winning configuration; null when the experiment reached no conclusion. */
  winner: z.string().nullable(),
  /** The catalogue metric the winner was chosen on. */
  objective: z.string(),
  runsPerConfiguration: z.number().int().min(1),
});

/** Front matter is strict at every level we own: an unknown (often misspelt) key is an error, never ignored. */
export const AdrFrontMatterSchema = z.strictObject({
  schemaVersion: z.literal(1),
  id: z.string().regex(/^ADR-\d{8}-\d{3}$/, 'an id such as ADR-20250102-001'),
  title: z.string().min(1),
  date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'a date such as 2025-01-02'),
  status: z.enum(ADR_STATUSES),
  supersedes: z.array(z.string()).optional(),
  workload: AdrWorkloadSchema.optional(),
  gate: GateSchema.optional(),
  rules: z.array(RuleSchema).optional(),
  rollback: RollbackSchema.optional(),
  runs: z
    .strictObject({ baseline: z.string(), candidates: z.array(z.string()), chosen: z.string().optional() })
    .optional(),
  /** Written by `adr new --experiment`: the experiment folder and its winner (null: no conclusion, refused by lint). */
  experiment: ExperimentRefSchema.optional(),
});
export type AdrFrontMatter = z.infer<typeof AdrFrontMatterSchema>;

/** "--max-num-batched-tokens=2048", "--enable-chunked-prefill", "!--enforce-eager". */
export function formatRule(rule: AdrRule): string {
  if (rule.absent) return `!${rule.flag}`;
  return rule.equals === undefined ? rule.flag : `${rule.flag}=${String(rule.equals)}`;
}

/** Whether a gate block holds at least one threshold. */
export function gateHasThreshold(gate: AdrGate | undefined): boolean {
  if (!gate) return false;
  return (gate.thresholds?.length ?? 0) > 0 || ADR_GATE_KEYS.some((k) => typeof gate[k] === 'number');
}
