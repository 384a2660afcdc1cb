import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SimServer, startSim } from '../sim/index.js';
import { describeServer } from './self-description.js';

const DCGM = readFileSync(join(import.meta.dirname, 'fixtures', 'dcgm.prom'), 'utf8');

function serve(
  handler: (path: string) => { status: number; body: string } | 'trickle',
): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const answer = handler(req.url ?? '/');
    if (answer === 'trickle') {
      res.writeHead(200, { 'content-type': 'application/json' });
      const t = setInterval(() => res.write(' '), 100);
      res.on('close', () => clearInterval(t));
      return;
    }
    res.writeHead(answer.status, { 'content-type': 'application/json' });
    res.end(answer.body);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server }),
    ),
  );
}

describe('describeServer', () => {
  let sim: SimServer;
  let dcgm: { url: string; server: Server };
  let slow: { url: string; server: Server };
  beforeAll(async () => {
    sim = await startSim({ seed: 1, engine: { maxNumBatchedTokens: 2048 } });
    dcgm = await serve(() => ({ status: 200, body: DCGM }));
    slow = await serve((path) => (path === '/v1/models' ? 'trickle' : { status: 404, body: '{}' }));
  });
  afterAll(async () => {
    await sim.close();
    dcgm.server.closeAllConnections();
    slow.server.closeAllConnections();
    dcgm.server.close();
    slow.server.close();
  });

  it("reads the simulated engine as vLLM's endpoints show it, with the GPU model from DCGM", async () => {
    const d = await describeServer(sim.url, { gpuMetricsUrl: `${dcgm.url}/metrics` });
    expect(d.engine).toBe('goodput-sim');
    expect(d.models).toEqual([sim.model]);
    expect(d.version).toMatch(/^\d+\.\d+/);
    expect(d.settings?.['cache_config.block_size']).toBe('16');
    expect(d.gpu).toEqual({ model: 'NVIDIA H100 80GB HBM3', count: expect.any(Number) });
    expect(d.gpu!.count).toBeGreaterThan(0);
    expect(d.sources).toMatchObject({ '/v1/models': 'ok', '/version': 'ok', '/metrics': 'ok', dcgm: 'ok' });
    expect(d.sources['/get_server_info']).toBe('HTTP 404');
  });

  it('is bounded in time: a server that trickles its answer is cut and named in sources', async () => {
    const t0 = performance.now();
    const d = await describeServer(slow.url, { timeoutMs: 500 });
    expect(performance.now() - t0).toBeLessThan(5_000);
    expect(d.engine).toBe('unknown');
    expect(d.sources['/v1/models']).toMatch(/not read whole|Timeout|Abort/i);
  });
});
