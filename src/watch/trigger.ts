/**
 * A rollback as it triggers: the evidence of the bad windows, the store's record of it, the
 * exporter's count, and the `--on-breach` command (breach.ts) with its exit code.
 *
 * @module
 */

import type { WatchStore } from '../store/index.js';
import { type BreachEvidence, runBreachCommand } from './breach.js';
import type { WatchConfig, WatchIo } from './config.js';
import type { WatchExporter } from './exporter.js';
import type { LiveTarget } from './probe.js';
import type { RollbackState } from './rollback.js';

/** Records a rollback of target `l` on the bad windows of `streak`, and runs --on-breach when given. */
export async function triggerRollback(
  l: LiveTarget,
  config: WatchConfig,
  streak: RollbackState['streak'],
  needed: number,
  envBase: Record<string, string>,
  io: WatchIo,
  store: WatchStore,
  exporter: WatchExporter | undefined,
  log: (text: string) => void,
): Promise<void> {
  const rule = config.rule!;
  const evidence: BreachEvidence = {
    schemaVersion: 1,
    kind: 'goodput.breach',
    target: l.probe.name,
    model: l.probe.model,
    rule: rule.source,
    condition: rule.condition,
    windows: needed,
    evidence: streak.map((w) => ({
      round: w.round,
      startedAt: new Date(w.startedAt).toISOString(),
      value: w.value,
    })),
    window: {
      from: new Date(streak[0]!.startedAt).toISOString(),
      to: new Date(streak[streak.length - 1]!.startedAt).toISOString(),
    },
    triggeredAt: new Date().toISOString(),
  };
  if (rule.adrId !== undefined) evidence.adrId = rule.adrId;
  log(
    `${l.probe.name}: ROLLBACK — ${rule.condition} held for ${needed} window(s) (rounds ${streak.map((w) => w.round).join(', ')})`,
  );
  const stored = {
    target: l.probe.name,
    at: Date.now(),
    round: l.round,
    rule: rule.source,
    evidence,
    ...(rule.adrId !== undefined ? { adrId: rule.adrId } : {}),
    ...(config.onBreach !== undefined ? { command: config.onBreach } : {}),
  };
  store.addRollback(stored);
  exporter?.countRollback(l.probe.name, l.probe.model);
  if (config.onBreach !== undefined) {
    const code = await runBreachCommand(config.onBreach, evidence, { env: envBase, cwd: io.cwd, log });
    store.setRollbackExitCode(l.probe.name, code);
    log(`${l.probe.name}: on-breach command exited with ${code}`);
    io.onRollback?.(evidence, code);
  } else io.onRollback?.(evidence);
}
