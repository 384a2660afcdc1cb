import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { measureStalls } from '../../test/helpers/loop-stall.js';
import { readBounded } from './bounded.js';

let server: Server | undefined;
afterEach(() => new Promise<void>((done) => (server ? server.close(() => done()) : done())));

async function start(handler: Parameters<typeof createServer>[1]): Promise<string> {
  server = createServer(handler);
  server.on('connection', (s) => s.unref());
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

describe('readBounded against misbehaving servers', () => {
  it('stops an endless body at the byte limit', async () => {
    const url = await start((_req, res) => {
      const chunk = Buffer.alloc(64 * 1024, 120);
      const push = () => {
        while (res.write(chunk)) {}
        res.once('drain', push);
      };
      push();
    });
    const res = await request(url);
    const out = await readBounded(res.body, { maxBytes: 100_000, timeoutMs: 5_000 });
    expect(out.stopped).toBe('limit');
    expect(out.text.length).toBe(100_000);
  });

  it('stops a trickling body at the deadline', async () => {
    const url = await start((_req, res) => {
      res.write('a');
      const t = setInterval(() => res.write('b'), 200);
      res.on('close', () => clearInterval(t));
    });
    const res = await request(url);
    const t0 = performance.now();
    const out = await readBounded(res.body, { maxBytes: 1_000_000, timeoutMs: 500 });
    expect(out.stopped).toBe('timeout');
    expect(performance.now() - t0).toBeLessThan(1_500);
    expect(out.text.startsWith('a')).toBe(true);
  });

  it('stops when the signal aborts, and reads a normal body whole', async () => {
    const url = await start((req, res) => {
      if (req.url === '/whole') res.end('hello');
      else res.write('x');
    });
    const whole = await readBounded((await request(`${url}whole`)).body, { maxBytes: 10, timeoutMs: 2_000 });
    expect(whole).toEqual({ text: 'hello', bytes: 5 });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 100);
    const out = await readBounded((await request(url)).body, {
      maxBytes: 10,
      timeoutMs: 10_000,
      signal: ac.signal,
    });
    expect(out.stopped).toBe('aborted');
  });
});

describe('readBounded: text and event loop', () => {
  /** A source whose chunks are all ready at once (as a body already in the socket buffer). */
  async function* ready(chunks: Buffer[]): AsyncGenerator<Buffer> {
    for (const c of chunks) yield c;
  }

  it('decodes as Buffer#toString would: a BOM kept, characters split across chunks, a cut mid-character', async () => {
    const bytes = Buffer.from('\uFEFFgpu="0" é€😀 end\n'.repeat(3));
    for (const size of [1, 2, 3, 5, 64]) {
      const chunks: Buffer[] = [];
      for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
      expect((await readBounded(ready(chunks), { maxBytes: 1e6, timeoutMs: 5000 })).text).toBe(
        bytes.toString('utf8'),
      );
      // cut inside the emoji: the kept bytes decode to what Buffer#toString makes of them
      const cut = bytes.indexOf(Buffer.from('😀')) + 2;
      const out = await readBounded(ready(chunks), { maxBytes: cut, timeoutMs: 5000 });
      expect(out.stopped).toBe('limit');
      expect(out.text).toBe(bytes.subarray(0, cut).toString('utf8'));
    }
  });

  it('a big body already buffered does not hold the event loop for the whole read', async () => {
    const chunks = Array.from({ length: 192 }, () => Buffer.alloc(64 * 1024, 'abc\n'));
    const {
      result: out,
      tookMs: took,
      longestStallMs: maxGap,
    } = await measureStalls(() =>
      readBounded(ready(chunks), { maxBytes: 16 * 1024 * 1024, timeoutMs: 20_000 }),
    );
    expect(out.text.length).toBe(12 * 1024 * 1024);
    expect(maxGap, `longest stall ${maxGap.toFixed(0)} ms of a ${took.toFixed(0)} ms read`).toBeLessThan(
      took / 2,
    );
  });
});
