/**
 * The multi-turn part of a run report: how sessions were run, and TTFT, E2EL and prompt tokens
 * by turn index beside the server's prefix-cache hit rate, so the prefix-cache effect (later
 * turns start sooner when the server keeps the conversation's blocks) shows at a glance.
 *
 * @module
 */

import { engineLabel } from '../engines/index.js';
import { metric } from '../metrics/index.js';
import type { LoadSpec, RunSummary } from '../types.js';
import { fmtInt, fmtMs, fmtNum, fmtPct } from './format.js';

interface ViewTable {
  header: string[];
  rows: string[][];
  align: Array<'l' | 'r'>;
}

/** The load shape of a session run in a few words ("2 sessions at once"); undefined without sessions. */
export function sessionLoadShape(l: LoadSpec): string | undefined {
  const x = l.sessions;
  if (!x) return undefined;
  const shape =
    x.rate !== undefined
      ? `sessions, open loop, ${x.rate} new sessions/s`
      : `sessions, closed loop, ${x.concurrency ?? l.concurrency ?? 1} at once`;
  return shape + (l.maxConcurrency !== undefined ? `, max concurrency ${l.maxConcurrency}` : '');
}

/** "2 sessions at once, 3 turns each, think 2 s (exponential)" — undefined without sessions. */
export function describeSessions(s: RunSummary): string | undefined {
  const l = s.meta.load.sessions;
  const w = s.meta.workload.sessions;
  if (!l && !w) return undefined;
  const parts: string[] = [];
  if (l?.concurrency !== undefined) parts.push(`${l.concurrency} sessions at once (closed loop)`);
  if (l?.rate !== undefined)
    parts.push(`${l.rate} new sessions/s, burstiness ${s.meta.load.burstiness ?? 1} (open loop)`);
  const t = w?.turns;
  if (t) parts.push(t.min === t.max ? `${t.min} turns each` : `${t.min}–${t.max} turns each`);
  else if (s.meta.workload.kind === 'dataset') parts.push("each conversation's own turns");
  if (w?.turnTokens !== undefined) parts.push(`${w.turnTokens} tokens per later user turn`);
  if (l?.userRate !== undefined) parts.push(`a user's turns ${fmtNum(1 / l.userRate)} s apart (user rate)`);
  else if (w?.thinkTime && w.thinkTime.meanMs > 0)
    parts.push(
      `think ${fmtNum(w.thinkTime.meanMs / 1000)} s${w.thinkTime.dist === 'exponential' ? ' (exponential mean)' : ''}`,
    );
  if (s.meta.load.maxConcurrency !== undefined)
    parts.push(`max ${s.meta.load.maxConcurrency} requests in flight`);
  return parts.join(', ');
}

/** The by-turn table and its notes (first vs later turns, prefix-cache hit rate); undefined without turns. */
export function turnsView(s: RunSummary): { table: ViewTable; notes: Array<[string, string]> } | undefined {
  if (!s.turns || s.turns.length === 0) return undefined;
  const first = s.turns.find((t) => t.turn === 1);
  const base = first && first.ttft.count > 0 ? first.ttft.p50 : undefined;
  const table: ViewTable = {
    header: [
      'turn',
      'requests',
      'ok',
      'prompt tokens (mean)',
      'TTFT p50',
      'TTFT p99',
      'TTFT p50 ÷ turn 1',
      'E2EL p50',
      'E2EL p99',
    ],
    rows: s.turns.map((t) => [
      `${t.turn}${t.andLater ? '+' : ''}`,
      fmtInt(t.requests),
      fmtInt(t.completed),
      fmtInt(Math.round(t.promptTokens.mean)),
      t.ttft.count > 0 ? fmtMs(t.ttft.p50) : '—',
      t.ttft.count > 0 ? fmtMs(t.ttft.p99) : '—',
      base !== undefined && base > 0 && t.ttft.count > 0 ? `×${(t.ttft.p50 / base).toFixed(2)}` : '—',
      t.e2el && t.e2el.count > 0 ? fmtMs(t.e2el.p50) : '—',
      t.e2el && t.e2el.count > 0 ? fmtMs(t.e2el.p99) : '—',
    ]),
    align: ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
  };
  const notes: Array<[string, string]> = [];
  const firstP50 = metric('ttft_p50_first_turn').read(s);
  const laterP50 = metric('ttft_p50_later_turns').read(s);
  if (firstP50 !== undefined && laterP50 !== undefined) {
    notes.push([
      'TTFT p50 first → later turns',
      `${fmtMs(firstP50)} ms → ${fmtMs(laterP50)} ms` +
        (firstP50 > 0 ? ` (×${(laterP50 / firstP50).toFixed(2)})` : ''),
    ]);
  }
  const hit = metric('prefix_cache_hit_rate').read(s);
  notes.push([
    "server's prefix-cache hit rate",
    hit !== undefined
      ? fmtPct(hit)
      : s.server && s.server.samples > 0
        ? `not published by ${engineLabel(s.server.engine)}`
        : 'not measured (no server metrics)',
  ]);
  return { table, notes };
}
