/**
 * `--header` and `--extra-body` on every command that sends requests, not only `run`: watch,
 * sweep, gate and doctor send them with every request (the model list too), and a header
 * value taken from the environment appears in no output and no file, even when the gateway
 * echoes it back. OPENAI_BASE_URL is the target of doctor as of run.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { filesUnder, runCliInProcess } from './helpers/cli.js';
import { leakedFragment } from './helpers/hostile-server.js';
import { chatChunk, json, loopbacksClosedAfterEach, writeEvents } from './helpers/loopback.js';

const dir = mkdtempSync(join(tmpdir(), 'goodput-extras-cmds-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const startServer = loopbacksClosedAfterEach();

const CANARY = 'gw-canary-3c1d9e7f5a2b4680';
const EXTRA = { priority: 3, chat_template_kwargs: { enable_thinking: false } };
const EXTRA_ARGS = [
  ...['--header', 'X-Gateway-Token: env:GW_TOKEN', '--header', 'X-Route: blue'],
  ...['--extra-body', JSON.stringify(EXTRA)],
];

/** A gateway that wants its token on every request, and echoes it in one error. */
async function gateway() {
  let posts = 0;
  return startServer(async (req, res, body) => {
    if (req.headers['x-gateway-token'] !== CANARY) return json(res, 401, { error: { message: 'no token' } });
    if (req.url?.endsWith('/v1/models')) return json(res, 200, { object: 'list', data: [{ id: 'm' }] });
    posts++;
    if (posts === 2) {
      return json(res, 400, { error: { message: `token ${CANARY} is not allowed on this route` } });
    }
    const b = body as { max_tokens?: number; stream?: boolean };
    const n = Math.min(b.max_tokens ?? 4, 4);
    if (b.stream !== true) {
      return json(res, 200, {
        id: 'x',
        object: 'chat.completion',
        model: 'm',
        choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'length' }],
        usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
      });
    }
    await writeEvents(res, [
      ...Array.from({ length: n }, () => chatChunk({ content: ' a' })),
      chatChunk({}, 'length', { prompt_tokens: 3, completion_tokens: n }),
      '[DONE]',
    ]);
  });
}

function expectNoCanary(outputs: Array<readonly [string, string]>): void {
  for (const [where, text] of outputs)
    expect([where, leakedFragment(text, CANARY)]).toEqual([where, undefined]);
}

describe('--header and --extra-body beyond run', () => {
  const cases: Array<{ name: string; argv: (url: string, out: string) => string[]; files: boolean }> = [
    {
      name: 'watch',
      argv: (url, out) => [
        'watch',
        ...['--url', url, '--rounds', '1', '--requests', '3', '--max-tokens', '2', '--json'],
        ...['--store', join(out, 'watch.db')],
      ],
      files: true,
    },
    {
      name: 'sweep',
      argv: (url, out) => [
        'sweep',
        ...['--url', url, '--concurrency', '1,2', '--requests', '3', '--max-tokens', '2', '--out', out],
      ],
      files: true,
    },
    {
      name: 'gate',
      argv: (url, out) => [
        'gate',
        ...['--url', url, '--requests', '3', '-c', '1', '--max-tokens', '2', '--out', out],
        'p99(ttft)<60000',
      ],
      files: true,
    },
    { name: 'doctor', argv: (url) => ['doctor', '--url', url, '--json'], files: false },
  ];
  for (const c of cases) {
    it(`${c.name}: arrive with every request; the env value is never shown or written`, async () => {
      const server = await gateway();
      const out = join(dir, c.name);
      if (c.name === 'watch') mkdirSync(out);
      const r = await runCliInProcess([...c.argv(server.url, out), ...EXTRA_ARGS], {
        cwd: dir,
        env: { GW_TOKEN: CANARY },
      });
      expect(r.stderr).not.toContain('error[E_USAGE]');
      const models = server.requests.filter((q) => q.url.endsWith('/v1/models'));
      const posts = server.requests.filter((q) => q.url.endsWith('/v1/chat/completions'));
      expect(models.length).toBeGreaterThanOrEqual(1);
      expect(posts.length).toBeGreaterThanOrEqual(2); // the echoing error was reached
      for (const q of [...models, ...posts]) {
        expect(q.headers['x-gateway-token']).toBe(CANARY);
        expect(q.headers['x-route']).toBe('blue');
      }
      for (const q of posts) expect(q.body).toMatchObject({ ...EXTRA, model: 'm' });
      const outputs: Array<readonly [string, string]> = [
        ['stdout', r.stdout],
        ['stderr', r.stderr],
      ];
      if (c.files) {
        const files = filesUnder(out);
        expect(files.length).toBeGreaterThan(0);
        for (const f of files)
          outputs.push([f.path, f.path.endsWith('.db') ? readFileSync(f.path, 'latin1') : f.text]);
      }
      expectNoCanary(outputs);
    }, 60_000);
  }

  it('watch --on-breach: the command does not inherit the variable holding the header secret', async () => {
    const server = await gateway();
    const out = join(dir, 'breach');
    mkdirSync(out);
    const r = await runCliInProcess(
      [
        'watch',
        ...['--url', server.url, '--rounds', '2', '--every', '100ms', '--requests', '2', '-c', '1'],
        ...['--max-tokens', '2', '--store', join(out, 'w.db'), '--rollback', 'p50(ttft)>=0 for 1 windows'],
        ...['--on-breach', 'env; echo done-breach'],
        ...EXTRA_ARGS,
      ],
      { cwd: dir, env: { GW_TOKEN: CANARY, PATH: process.env.PATH } },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('done-breach');
    expect(r.stderr).not.toContain('GW_TOKEN=');
    expectNoCanary([
      ['stdout', r.stdout],
      ['stderr', r.stderr],
    ]);
  }, 60_000);
});

describe('OPENAI_BASE_URL', () => {
  it('is the target of doctor when there is no --url nor GOODPUT_BASE_URL', async () => {
    const server = await gateway();
    const r = await runCliInProcess(['doctor', '--json', ...EXTRA_ARGS], {
      cwd: dir,
      env: { OPENAI_BASE_URL: `${server.url}/v1`, GW_TOKEN: CANARY },
    });
    const report = JSON.parse(r.stdout) as {
      target: string;
      steps: Array<{ stage: string; details: string[] }>;
    };
    expect(report.target).toBe(`${server.url}/v1/chat/completions`);
    expect(report.steps[0]!.details.join(' ')).toContain('OPENAI_BASE_URL');
    expect(server.requests.some((q) => q.url === '/v1/models')).toBe(true);
  }, 30_000);
});
