import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SimServer, startSim } from '../sim/index.js';
import { describeServer, redactDescription } from './self-description.js';

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

  it('reads a server that answers as SGLang does (/get_server_info), leaving its api_key out', async () => {
    const sglang = await serve((path) => {
      if (path === '/v1/models')
        return { status: 200, body: JSON.stringify({ data: [{ id: 'qwen', owned_by: 'sglang' }] }) };
      if (path === '/get_server_info')
        return {
          status: 200,
          body: JSON.stringify({
            version: '0.5.2',
            tp_size: 2,
            mem_fraction_static: 0.88,
            api_key: 'fake-sglang-secret-123456',
            chunked_prefill_size: 8192,
            internal_states: [{ last_gen_throughput: 10 }],
          }),
        };
      return { status: 404, body: '{"detail":"Not Found"}' };
    });
    try {
      const d = await describeServer(sglang.url, { timeoutMs: 1000 });
      expect(d).toMatchObject({ engine: 'sglang', version: '0.5.2', models: ['qwen'] });
      expect(d.settings).toMatchObject({
        tp_size: '2',
        mem_fraction_static: '0.88',
        chunked_prefill_size: '8192',
      });
      expect(JSON.stringify(d)).not.toContain('fake-sglang');
      expect(d.sources).toMatchObject({ '/get_server_info': 'ok', '/version': 'HTTP 404' });
    } finally {
      sglang.server.closeAllConnections();
      sglang.server.close();
    }
  });

  it('reads a server that answers as llama.cpp does (/props: its build as the version, long values cut)', async () => {
    const llama = await serve((path) => {
      if (path === '/v1/models')
        return { status: 200, body: JSON.stringify({ data: [{ id: 'gemma.gguf', owned_by: 'llamacpp' }] }) };
      if (path === '/props')
        return {
          status: 200,
          body: JSON.stringify({
            build_info: 'b6123-abc1234',
            total_slots: 4,
            default_generation_settings: { n_ctx: 4096, params: { temperature: 0.8 } },
            chat_template: 'x'.repeat(5000),
          }),
        };
      return { status: 404, body: 'File Not Found' };
    });
    try {
      const d = await describeServer(llama.url, { timeoutMs: 1000 });
      expect(d).toMatchObject({ engine: 'llama.cpp', version: 'b6123-abc1234', models: ['gemma.gguf'] });
      expect(d.settings).toMatchObject({
        total_slots: '4',
        'default_generation_settings.n_ctx': '4096',
        'default_generation_settings.params.temperature': '0.8',
      });
      expect(d.settings!.chat_template!.length).toBeLessThan(300);
    } finally {
      llama.server.closeAllConnections();
      llama.server.close();
    }
  });

  it('says what it could not read from a server that answers garbage or too much, and never throws', async () => {
    const huge = JSON.stringify({ version: '1', pad: 'y'.repeat(2_000_000) });
    const odd = await serve((path) =>
      path === '/get_server_info'
        ? { status: 200, body: huge }
        : path === '/metrics'
          ? { status: 200, body: '\u0000\u0001 not prometheus {{{' }
          : { status: 200, body: '<html>not json</html>' },
    );
    try {
      const d = await describeServer(odd.url, { timeoutMs: 1000 });
      expect(d.engine).toBe('unknown');
      expect(d.settings).toBeUndefined();
      expect(d.sources['/get_server_info']).toMatch(/not read whole \(limit\)/);
      expect(d.sources['/props']).toBe('not understood');
      expect(d.sources['/version']).toBe('not understood');
      expect(d.sources['/metrics']).toBe('not understood');
    } finally {
      odd.server.closeAllConnections();
      odd.server.close();
    }
  });

  it('redacts the run secrets from everything a server said (a gateway that echoes the key)', () => {
    const key = 'fake-run-key-abcdefghijkl';
    const d = redactDescription(
      {
        engine: 'vllm',
        version: `0.11 ${key}`,
        models: [`m-${key.slice(0, 10)}`],
        settings: { echo: `Bearer ${key}` },
        gpu: { model: 'H100', count: 1 },
        sources: { '/version': 'ok' },
      },
      [key],
    );
    expect(JSON.stringify(d)).not.toContain('fake-run-key');
    expect(d.settings!.echo).toBe('Bearer [REDACTED]');
  });
});
