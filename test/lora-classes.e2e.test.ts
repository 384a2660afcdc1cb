/**
 * Two traffic classes, each on its own LoRA adapter, on the embedded engine in virtual time:
 * the classes' `model=` names are served as adapters (no --url needed), every request is
 * answered, and with one adapter slot (--max-loras 1) a class waits for the other's slot,
 * which two slots relieve.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { collect, readRecords } from '../src/results/index.js';
import type { RunSummary } from '../src/types.js';
import { virtualRunSummary } from './helpers/cli.js';

async function twoModelRun(maxLoras: number): Promise<{ dir: string; summary: RunSummary }> {
  const dir = await mkdtemp(join(tmpdir(), 'goodput-lora-'));
  return {
    dir,
    summary: await virtualRunSummary(dir, [
      '--rate',
      '30',
      '--requests',
      '80',
      '--seed',
      '3',
      '--max-loras',
      String(maxLoras),
      '--class',
      'name=sql,share=0.5,prompt-tokens=256,max-tokens=64,model=sql-lora',
      '--class',
      'name=chat,share=0.5,prompt-tokens=128,max-tokens=32,model=chat-lora',
    ]),
  };
}

describe('classes on two LoRA adapters of the embedded engine (virtual time)', () => {
  it('serves each class on its adapter, and one adapter slot makes a class wait where two do not', async () => {
    const [one, two] = await Promise.all([twoModelRun(1), twoModelRun(2)]);
    for (const run of [one, two]) {
      expect(run.summary.counts.completed).toBe(80);
      expect(run.summary.classes?.map((c) => [c.name, c.model])).toEqual([
        ['sql', 'sql-lora'],
        ['chat', 'chat-lora'],
      ]);
    }
    expect([one.summary.meta.target.simMaxLoras, two.summary.meta.target.simMaxLoras]).toEqual([1, 2]);
    // The engine describes itself as its live server lists /v1/models: the base model, then the adapters.
    expect(one.summary.meta.target.selfDescription?.models).toEqual([
      one.summary.meta.model,
      'sql-lora',
      'chat-lora',
    ]);
    const records = await collect(readRecords(one.dir));
    expect(records.every((r) => r.outcome === 'success')).toBe(true);

    const ttft = (run: { summary: RunSummary }) =>
      Math.max(...(run.summary.classes ?? []).map((c) => c.latency.ttft.p99));
    // With one slot, the adapters take turns: the class whose adapter waits sees its first token late.
    expect(ttft(one)).toBeGreaterThan(5 * ttft(two));
  });
});
