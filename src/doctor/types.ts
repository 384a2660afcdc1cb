/**
 * What a doctor step reports.
 *
 * @module
 */

import type { ExitCode } from '../errors.js';

export type StepStatus = 'pass' | 'warn' | 'fail' | 'skip';

/** The stage classes, each with its own exit code when it is the first to fail. */
export type StageId =
  | 'config'
  | 'reachability'
  | 'models'
  | 'non-streaming'
  | 'streaming'
  | 'conformance'
  | 'load';

export interface StepResult {
  stage: StageId;
  title: string;
  status: StepStatus;
  /** Wall time the step took. */
  ms: number;
  /** Facts found on the way ("DNS 127.0.0.1 in 0.4 ms", "will call http://…"). */
  details: string[];
  /** For warn/fail: what is wrong. */
  cause?: string;
  /** For warn/fail: what to do about it. */
  fix?: string;
  /** Machine-readable facts for --json. */
  data?: Record<string, unknown>;
}

export interface DoctorReport {
  schemaVersion: 1;
  kind: 'goodput.doctor';
  /** The endpoint URL that requests go to (never with credentials). */
  target: string;
  ok: boolean;
  steps: StepResult[];
  /** The first failing stage, if any. */
  failedStage?: StageId;
  exitCode: ExitCode;
}
