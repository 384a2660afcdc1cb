/**
 * Cache hygiene between the runs of an experiment: three loopback servers of the test's own,
 * one per engine dialect (vLLM, SGLang, llama.cpp, told apart by `owned_by` in /v1/models as the
 * engines answer), record the reset calls goodput makes before each run; each call is kept in
 * the run's `cacheReset` with the server's answer. And what the server says of itself is kept.
 */

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ExperimentFile } from '../src/types.js';
import { runCliInProcess } from './helpers/cli.js';
import { chatChunk, json, type Loopback, loopbacksClosedAfterEach, writeEvents } from './helpers/loopback.js';

const work = mkdtempSync(join(tmpdir(), 'goodput-experiment-reset-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const serve = loopbacksClosedAfterEach();

/** An OpenAI-compatible server owned by `owner`, with the engine's own cache and info endpoints. */
function engineServer(owner: string): Promise<Loopback> {
  return serve((req, res) => {
    const path = req.url ?? '';
    if (path === '/v1/models')
      return json(res, 200, { object: 'list', data: [{ id: 'm', owned_by: owner }] });
    if (path === '/v1/chat/completions')
      return void writeEvents(res, [
        chatChunk({ content: 'a' }),
        chatChunk({ content: 'b' }, 'stop', { prompt_tokens: 5, completion_tokens: 2 }),
        '[DONE]',
      ]);
    if (owner === 'vllm' && path === '/reset_prefix_cache' && req.method === 'POST')
      return json(res, 200, {});
    if (owner === 'vllm' && path === '/version') return json(res, 200, { version: '0.11.0' });
    if (owner === 'sglang' && path === '/flush_cache' && req.method === 'POST')
      return json(res, 200, { message: 'Cache flushed.' });
    if (owner === 'sglang' && path === '/get_server_info')
      return json(res, 200, {
        version: '0.5.1',
        chunked_prefill_size: 8192,
        api_key: 'sk-secret-never-kept',
      });
    if (owner === 'llamacpp' && path === '/slots') return json(res, 200, [{ id: 0 }, { id: 1 }]);
    if (owner === 'llamacpp' && /^\/slots\/\d\?action=erase$/.test(path) && req.method === 'POST')
      return json(res, 200, { id_slot: Number(path[7]), n_erased: 10 });
    if (owner === 'llamacpp' && path === '/props') return json(res, 200, { total_slots: 2 });
    return json(res, 404, { error: 'not found' });
  });
}

const resets = (lb: Loopback) =>
  lb.requests.filter((r) => r.method === 'POST' && !r.url.startsWith('/v1/')).map((r) => r.url);

describe('goodput experiment: cache resets between runs', () => {
  it("calls each engine's reset before each of its runs and records the answer", async () => {
    const [vllm, sglang, llama] = await Promise.all([
      engineServer('vllm'),
      engineServer('sglang'),
      engineServer('llamacpp'),
    ]);
    const plan = join(work, 'plan.yaml');
    writeFileSync(
      plan,
      [
        'output: out',
        'runs: 2',
        'configurations:',
        `  - { name: vLLM, url: "${vllm.url}" }`,
        `  - { name: SGLang, url: "${sglang.url}" }`,
        `  - { name: llama.cpp, url: "${llama.url}" }`,
        'run: { concurrency: 1, requests: 3, prompt-tokens: 8, max-tokens: 2, server-metrics: false }',
        '',
      ].join('\n'),
    );
    const r = await runCliInProcess(['experiment', plan, '--quiet'], { cwd: work });
    expect(r.code, r.stderr).toBe(0);
    expect(resets(vllm)).toEqual(['/reset_prefix_cache', '/reset_prefix_cache']);
    expect(resets(sglang)).toEqual(['/flush_cache', '/flush_cache']);
    expect(resets(llama)).toEqual([
      '/slots/0?action=erase',
      '/slots/1?action=erase',
      '/slots/0?action=erase',
      '/slots/1?action=erase',
    ]);
    // Each reset comes before its run's requests.
    const kinds = vllm.requests
      .filter((x) => x.method === 'POST')
      .map((x) => (x.url === '/reset_prefix_cache' ? 'R' : 'c'))
      .join('');
    expect(kinds).toBe('RcccRccc');
    const state = JSON.parse(readFileSync(join(work, 'out', 'experiment.json'), 'utf8')) as ExperimentFile;
    const [v, s, l] = state.configurations;
    expect(v!.runs.map((x) => x.cacheReset)).toEqual([
      { method: 'vllm POST /reset_prefix_cache', ok: true, status: 200, detail: '{}' },
      { method: 'vllm POST /reset_prefix_cache', ok: true, status: 200, detail: '{}' },
    ]);
    expect(s!.runs[0]!.cacheReset).toMatchObject({
      method: 'sglang POST /flush_cache',
      ok: true,
      status: 200,
    });
    expect(l!.runs[1]!.cacheReset).toMatchObject({ ok: true, detail: '2 of 2 slots erased' });
    // What each server said of itself; a credential among SGLang's settings is not kept.
    expect(v!.server).toMatchObject({ engine: 'vllm', version: '0.11.0', models: ['m'] });
    expect(s!.server).toMatchObject({ engine: 'sglang', version: '0.5.1' });
    expect(s!.server!.settings!.chunked_prefill_size).toBe('8192');
    expect(JSON.stringify(state)).not.toContain('sk-secret');
    expect(l!.server).toMatchObject({ engine: 'llama.cpp', settings: { total_slots: '2' } });
  }, 60_000);

  it('calls a command of the plan instead, with {url} filled in', async () => {
    const vllm = await engineServer('vllm');
    const marker = join(work, 'reset-calls.txt');
    const plan = join(work, 'command.yaml');
    writeFileSync(
      plan,
      [
        'output: out-command',
        'runs: 2',
        `configurations: [{ name: A, url: "${vllm.url}" }]`,
        `cache_reset: { command: [${JSON.stringify(process.execPath)}, "-e", "require('fs').appendFileSync(process.argv[1], process.argv[2] + '\\\\n'); console.log('reset done')", ${JSON.stringify(marker)}, "{url}"] }`,
        'run: { concurrency: 1, requests: 2, prompt-tokens: 8, max-tokens: 2, server-metrics: false }',
        '',
      ].join('\n'),
    );
    const r = await runCliInProcess(['experiment', plan, '--quiet'], { cwd: work });
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(marker, 'utf8')).toBe(`${vllm.url}\n${vllm.url}\n`);
    expect(resets(vllm)).toEqual([]);
    const state = JSON.parse(
      readFileSync(join(work, 'out-command', 'experiment.json'), 'utf8'),
    ) as ExperimentFile;
    expect(state.configurations[0]!.runs[0]!.cacheReset).toMatchObject({
      ok: true,
      status: 0,
      detail: 'reset done',
    });
  }, 60_000);
});
