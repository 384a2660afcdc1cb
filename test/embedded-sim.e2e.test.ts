/**
 * The embedded engine of `goodput run` runs on its own worker thread when started from the
 * built package, so a busy load generator cannot delay the engine's steps (and the reverse).
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import type { EmbeddedSim } from '../src/sim/index.js';
import { ensureBuilt, REPO } from './helpers/cli.js';

type Start = (opts: object) => Promise<EmbeddedSim>;
let startEmbeddedSim: Start;

beforeAll(async () => {
  ensureBuilt();
  const mod = (await import(pathToFileURL(join(REPO, 'dist', 'sim', 'index.js')).href)) as {
    startEmbeddedSim: Start;
  };
  startEmbeddedSim = mod.startEmbeddedSim;
}, 120_000);

describe('startEmbeddedSim from dist', () => {
  it('serves from a worker thread, and keeps streaming while this thread is blocked', async () => {
    const sim = await startEmbeddedSim({ host: '127.0.0.1', port: 0, seed: 1 });
    try {
      expect(sim.isolated).toBe(true);
      expect(sim.profileId).toBe('h100:llama-3.1-8b');
      const models = (await (await fetch(`${sim.url}/v1/models`)).json()) as { data: Array<{ id: string }> };
      expect(models.data[0]!.id).toBe(sim.model);
      const res = await fetch(`${sim.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          model: sim.model,
          messages: [{ role: 'user', content: 'hello' }],
          max_tokens: 64,
          ignore_eos: true,
          stream: true,
        }),
      });
      // Block this thread for 1 s: an engine on it could not step, and the answer (64 tokens of
      // ~8 ms) would take another half second after; on its own thread it keeps generating,
      // so the whole answer is there when we read.
      const until = performance.now() + 1000;
      while (performance.now() < until) {
        // busy
      }
      const t0 = performance.now();
      const text = await res.text();
      const readMs = performance.now() - t0;
      expect(text).toContain('[DONE]');
      expect(readMs).toBeLessThan(200);
    } finally {
      await sim.close();
    }
  });

  it('reports a bad profile as a coded error, and close() ends the worker', async () => {
    await expect(
      startEmbeddedSim({ host: '127.0.0.1', port: 0, profile: 'tpu:llama-3.1-8b' }),
    ).rejects.toMatchObject({
      code: expect.stringMatching(/^E_/),
    });
    const sim = await startEmbeddedSim({ host: '127.0.0.1', port: 0 });
    await sim.close();
    await expect(fetch(`${sim.url}/health`)).rejects.toThrow();
  });
});
