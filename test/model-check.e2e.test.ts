/**
 * `run --model X` against a server that does not list X is refused (exit 2) naming the ids it
 * serves and the --model fix, instead of a run whose results are labelled X. A server whose
 * model list is empty or absent is not refused: the run goes on and says the model was not
 * checked.
 *
 * @module
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCliInProcess } from './helpers/cli.js';
import { chatChunk, json, type Loopback, startLoopback, writeEvents } from './helpers/loopback.js';

const SMALL = ['--requests', '2', '--concurrency', '1', '--prompt-tokens', '16', '--max-tokens', '4'];

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'goodput-model-check-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

let server: Loopback | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A server that streams a short answer to any model, and answers GET /v1/models as `models` says. */
function startServer(models: (res: Parameters<typeof json>[0]) => void): Promise<Loopback> {
  return startLoopback(async (req, res) => {
    if (req.method === 'GET') {
      models(res);
      return;
    }
    await writeEvents(res, [
      chatChunk({ content: 'a' }),
      chatChunk({ content: 'b' }, 'stop', { prompt_tokens: 16, completion_tokens: 2 }),
      '[DONE]',
    ]);
  });
}

describe('run --model checked against the served models', () => {
  it('against the embedded engine, an id it does not serve: exit 2, the served id in the hint', async () => {
    const out = join(work, 'nope');
    const r = await runCliInProcess(['run', '--model', 'nope', ...SMALL, '--out', out], { cwd: work });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/model 'nope' is not served by .*, which serves: /);
    // The hint names the fix with the id the engine serves (its default profile's model).
    expect(r.stderr).toMatch(/hint: use --model \S+\/\S+/);
  }, 30_000);

  it('a case difference is named as such', async () => {
    server = await startServer((res) => json(res, 200, { object: 'list', data: [{ id: 'Org/Model-A' }] }));
    const r = await runCliInProcess(
      ['run', '--url', server.url, '--model', 'org/model-a', ...SMALL, '--out', join(work, 'case')],
      { cwd: work },
    );
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain("'Org/Model-A' is (model ids are case-sensitive)");
    expect(r.stderr).toContain('hint: use --model Org/Model-A');
    expect(server.requests.filter((q) => q.method === 'POST')).toHaveLength(0);
  }, 30_000);

  it.each([
    [
      'an empty model list',
      (res: Parameters<typeof json>[0]) => json(res, 200, { object: 'list', data: [] }),
      /the server lists no models: --model m not checked/,
    ],
    [
      'no model list (404)',
      (res: Parameters<typeof json>[0]) => json(res, 404, { error: { message: 'no such route' } }),
      /--model m not checked against the server's model list/,
    ],
  ])(
    '%s: the run goes on and says the model was not checked',
    async (_name, models, note) => {
      server = await startServer(models);
      const r = await runCliInProcess(
        ['run', '--url', server.url, '--model', 'm', ...SMALL, '--out', join(work, `ok-${Math.random()}`)],
        { cwd: work },
      );
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(note);
    },
    30_000,
  );

  it('a listed id: no note, the run goes on', async () => {
    server = await startServer((res) => json(res, 200, { object: 'list', data: [{ id: 'a' }, { id: 'm' }] }));
    const r = await runCliInProcess(
      ['run', '--url', server.url, '--model', 'm', ...SMALL, '--out', join(work, 'listed')],
      { cwd: work },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/not checked|not served/);
  }, 30_000);
});
