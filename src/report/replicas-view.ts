/**
 * The per-replica table of a run report, when the run read several replicas (the summary's
 * `server.replicas`): one row per replica (requests served and their share, generated tokens,
 * mean running and waiting, mean and peak KV usage, preemptions, failed scrapes) and a last row
 * of the totals the server block holds. Shared by the terminal, Markdown and HTML reports.
 *
 * @module
 */

import type { ReplicaServerSummary, RunSummary } from '../types.js';
import { fmtInt, fmtNum, fmtPct } from './format.js';

export interface ReplicasView {
  header: string[];
  rows: string[][];
  align: Array<'l' | 'r'>;
}

const dash = '—';
const opt = (v: number | undefined, f: (v: number) => string) => (v === undefined ? dash : f(v));

/** The table, or undefined with fewer than two replicas. */
export function buildReplicasView(s: Pick<RunSummary, 'server'>): ReplicasView | undefined {
  const server = s.server;
  const replicas = server?.replicas;
  if (!server || !replicas || replicas.length < 2) return undefined;
  const requests = replicas.every((r) => r.requests !== undefined)
    ? replicas.reduce((acc, r) => acc + r.requests!, 0)
    : undefined;
  const share = (r: ReplicaServerSummary) =>
    r.requests !== undefined && requests ? ` (${fmtPct(r.requests / requests)})` : '';
  const row = (r: ReplicaServerSummary): string[] => [
    r.replica,
    r.requests === undefined ? dash : `${fmtInt(r.requests)}${share(r)}`,
    opt(r.generatedTokens, fmtInt),
    opt(r.series.running?.mean, fmtNum),
    opt(r.series.waiting?.mean, fmtNum),
    opt(r.series.kvUsage?.mean, fmtPct),
    opt(r.series.kvUsage?.max, fmtPct),
    opt(r.preemptions, fmtInt),
    fmtInt(r.scrapeFailures ?? 0),
  ];
  const kvPeak = server.replicaMax?.kvUsage;
  return {
    header: [
      'replica',
      'requests',
      'generated tokens',
      'running',
      'waiting',
      'KV mean',
      'KV max',
      'preemptions',
      'failed scrapes',
    ],
    rows: [
      ...replicas.map(row),
      [
        'total',
        opt(requests, fmtInt),
        opt(server.generatedTokens, fmtInt),
        // The totals' queue depths are summed per scrape round: their mean is the sum of the means.
        opt(server.series.running?.mean, fmtNum),
        opt(server.series.waiting?.mean, fmtNum),
        opt(server.series.kvUsage?.mean, fmtPct),
        kvPeak ? `${fmtPct(kvPeak.value)} (${kvPeak.replica})` : dash,
        opt(server.preemptions, fmtInt),
        fmtInt(server.scrapeFailures ?? 0),
      ],
    ],
    align: ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
  };
}
