/**
 * Doctor's renderers: one line per step (✓, !, ✗) with its timing, details indented, cause
 * and fix for a warning or a failure; and JSON for machines.
 *
 * @module
 */

import type { DoctorReport, StepResult } from './types.js';

const MARK: Record<StepResult['status'], string> = { pass: '✓', warn: '!', fail: '✗', skip: '-' };

export function renderStep(step: StepResult): string {
  const lines = [`${MARK[step.status]} ${step.title} (${step.ms.toFixed(1)} ms)`];
  for (const d of step.details) lines.push(`    ${d}`);
  if (step.cause) lines.push(`    ${step.status === 'fail' ? 'cause' : 'note'}: ${step.cause}`);
  if (step.fix) lines.push(`    fix: ${step.fix}`);
  return `${lines.join('\n')}\n`;
}

export function renderDoctorSummary(report: DoctorReport): string {
  if (report.ok) {
    const warns = report.steps.filter((s) => s.status === 'warn').length;
    return `\nall ${report.steps.length} checks passed${warns ? ` (${warns} with a note)` : ''}: ${report.target} is ready to measure\n`;
  }
  const failed = report.steps.find((s) => s.status === 'fail');
  return `\nstopped at '${failed?.title}' (exit ${report.exitCode}): ${failed?.cause}\nfix: ${failed?.fix}\n`;
}

export function renderDoctorJson(report: DoctorReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}
