/**
 * Per-turn figures of a multi-turn run: TTFT, E2EL and prompt tokens by turn index, so a report
 * can show how the first token comes sooner on later turns when the server's prefix cache holds
 * the conversation so far (shown beside the server's prefix-cache hit rate). Turns after
 * MAX_TURN_ROWS share the last row (`andLater`), so memory stays bounded whatever the data.
 *
 * @module
 */

import type { LatencyStats, TurnRow } from '../types.js';
import { LatencyHistogram } from './histogram.js';

/** A row's TTFT histogram back (throws when the row has TTFTs but no histogram to merge exactly). */
export type DecodeTtft = (encoded: string | undefined, stats: LatencyStats, what: string) => LatencyHistogram;

/** Turns 1..MAX_TURN_ROWS get a row each; later ones are pooled in the last. */
export const MAX_TURN_ROWS = 32;

class TurnState {
  requests = 0;
  completed = 0;
  promptTokens = 0;
  maxPromptTokens = 0;
  readonly ttft = new LatencyHistogram();
  readonly e2el = new LatencyHistogram();
  /** A merged row some of whose requests have no E2EL (a summary written before rows had one): none shown. */
  e2elIncomplete = false;
}

/** Accumulates measured session turns (records with a `turn`). */
export class TurnStats {
  private readonly rows = new Map<number, TurnState>();
  /** Every turn after the first, pooled (turn 1 against the rest: the prefix-cache effect). */
  private readonly later = new TurnState();

  /** One measured record of turn `turn` (1-based); `ttftMs` and `e2elMs` when it succeeded. */
  add(
    turn: number,
    promptTokens: number,
    success: boolean,
    ttftMs: number | undefined,
    e2elMs?: number,
  ): void {
    const key = Math.min(Math.max(1, Math.floor(turn)), MAX_TURN_ROWS);
    let row = this.rows.get(key);
    if (!row) {
      row = new TurnState();
      this.rows.set(key, row);
    }
    for (const r of key > 1 ? [row, this.later] : [row]) {
      r.requests++;
      if (!success) continue;
      r.completed++;
      r.promptTokens += promptTokens;
      if (promptTokens > r.maxPromptTokens) r.maxPromptTokens = promptTokens;
      if (ttftMs !== undefined) r.ttft.record(ttftMs);
      if (e2elMs !== undefined) r.e2el.record(e2elMs);
    }
  }

  get size(): number {
    return this.rows.size;
  }

  /** The rows in turn order (successful requests' TTFT and prompt tokens). */
  toRows(): TurnRow[] {
    return [...this.rows.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([turn, s]) => toRow(turn, s, turn === MAX_TURN_ROWS));
  }

  /**
   * Adds another run's rows (a shard's, for `goodput merge`): counts and prompt-token sums add
   * up, TTFT histograms merge exactly.
   */
  mergeRows(rows: readonly TurnRow[], later: TurnRow | undefined, decode: DecodeTtft): void {
    const into = (row: TurnState, r: TurnRow) => {
      row.requests += r.requests;
      row.completed += r.completed;
      row.promptTokens += r.promptTokens.mean * r.completed;
      row.maxPromptTokens = Math.max(row.maxPromptTokens, r.promptTokens.max);
      row.ttft.merge(decode(r.ttftHistogram, r.ttft, `turn ${r.turn}${r.andLater ? '+' : ''} TTFT`));
      if (r.e2el)
        row.e2el.merge(decode(r.e2elHistogram, r.e2el, `turn ${r.turn}${r.andLater ? '+' : ''} E2EL`));
      else if (r.completed > 0) row.e2elIncomplete = true;
    };
    for (const r of rows) {
      const key = Math.min(Math.max(1, Math.floor(r.turn)), MAX_TURN_ROWS);
      let row = this.rows.get(key);
      if (!row) {
        row = new TurnState();
        this.rows.set(key, row);
      }
      into(row, r);
    }
    if (later) into(this.later, later);
  }

  /** Turns 2 and later pooled as one row (turn 2, andLater); undefined when there were none. */
  laterRow(): TurnRow | undefined {
    return this.later.requests > 0 ? toRow(2, this.later, true) : undefined;
  }
}

function toRow(turn: number, s: TurnState, andLater: boolean): TurnRow {
  const row: TurnRow = {
    turn,
    requests: s.requests,
    completed: s.completed,
    ttft: s.ttft.stats(),
    ...(s.ttft.count > 0 ? { ttftHistogram: s.ttft.encode() } : {}),
    ...(s.e2elIncomplete ? {} : { e2el: s.e2el.stats() }),
    ...(!s.e2elIncomplete && s.e2el.count > 0 ? { e2elHistogram: s.e2el.encode() } : {}),
    promptTokens: { mean: s.completed > 0 ? s.promptTokens / s.completed : 0, max: s.maxPromptTokens },
  };
  if (andLater) row.andLater = true;
  return row;
}
