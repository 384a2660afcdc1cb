import { describe, expect, it } from 'vitest';
import { json, loopbacksClosedAfterEach } from '../../test/helpers/loopback.js';
import { writeEndless, writeTrickle } from '../../test/helpers/misbehave.js';
import { GoodputError } from '../errors.js';
import { listModels } from './index.js';

const serve = loopbacksClosedAfterEach();
const KEY = 'test-key-0123456789abcdefghij';

async function failure(p: Promise<unknown>): Promise<GoodputError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(GoodputError);
  return e as GoodputError;
}

describe('listModels against servers that never finish', () => {
  it('a model list trickled a byte a second is cut at the timeout, named as such', async () => {
    const lb = await serve((_q, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      writeTrickle(res, '{"data":[{"id":"m"}]}', 300);
    });
    const t0 = performance.now();
    const err = await failure(listModels(lb.url, KEY, { timeoutMs: 800 }));
    expect(performance.now() - t0).toBeLessThan(3_000);
    expect(err.code).toBe('E_UNREACHABLE');
    expect((err.cause as { code: string }).code).toBe('TIMEOUT');
    expect(err.message).toMatch(/no whole answer within 0.8 s/);
    expect(err.hint).toMatch(/--model/);
  });

  it('an endless 200 body stops at the size limit with a usage hint, memory flat', async () => {
    const lb = await serve((_q, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      writeEndless(res, Buffer.alloc(256 * 1024, '['));
    });
    const rss0 = process.memoryUsage().rss;
    const err = await failure(listModels(lb.url, KEY, { timeoutMs: 20_000 }));
    expect(err.code).toBe('E_NO_MODEL');
    expect(err.message).toMatch(/more than 8 MiB/);
    expect(process.memoryUsage().rss - rss0).toBeLessThan(200 * 1024 * 1024);
  });

  it('an endless 401 body is read only far enough for the message, without the echoed key', async () => {
    const lb = await serve((req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.write(`{"error":{"message":"bad key ${req.headers.authorization}`);
      writeEndless(res, Buffer.alloc(64 * 1024, 'x'));
    });
    const err = await failure(listModels(lb.url, KEY, { timeoutMs: 20_000 }));
    expect(err.code).toBe('E_KEY');
    expect(err.message).toContain('bad key Bearer [REDACTED]');
    expect(err.message).not.toContain(KEY.slice(0, 6));
    expect(err.message.length).toBeLessThan(1_000);
  });

  it('the signal stops a hanging call at once, as an interruption (exit 130)', async () => {
    const lb = await serve(() => undefined);
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 200);
    const t0 = performance.now();
    const err = await failure(listModels(lb.url, KEY, { timeoutMs: 30_000, signal: ac.signal }));
    expect(performance.now() - t0).toBeLessThan(2_000);
    expect(err.exitCode).toBe(130);
  });

  it('a healthy list still reads whole', async () => {
    const lb = await serve((_q, res) => json(res, 200, { data: [{ id: 'a' }, { id: 'b' }] }));
    expect(await listModels(lb.url, KEY, { timeoutMs: 2_000 })).toEqual(['a', 'b']);
  });
});
