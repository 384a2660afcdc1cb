/**
 * A bench server of the benches' own: node:http on 127.0.0.1:0 in a child process (so it
 * shares neither the event loop nor the CPU accounting of the client under test), streaming OpenAI-style chat
 * chunks. It records, per request, when the request arrived and when it wrote each chunk
 * (performance.now() of its own process), so the client's timings can be checked against
 * what the server actually did. Differences of times on one clock are compared, never
 * times across processes.
 *
 * Modes:
 * - `burst`: zero delay, the whole response as a few writes (throughput);
 * - `paced`: first chunk after `ttftMs`, then one chunk every `gapMs` (timing accuracy).
 *
 * Usage (main thread): `const server = await startStreamServer({ mode, chunks, ttftMs, gapMs })`,
 * then `server.url`, `await server.records()`, `await server.close()`.
 *
 * @module
 */

import { fork } from 'node:child_process';
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

function chunkJson(content, finish) {
  return JSON.stringify({
    id: 'chatcmpl-bench0000000000000000',
    object: 'chat.completion.chunk',
    created: 1700000000,
    model: 'bench-model',
    choices: [
      { index: 0, delta: content === null ? {} : { content }, logprobs: null, finish_reason: finish },
    ],
  });
}

function runServer(opts) {
  const { mode, chunks, ttftMs = 0, gapMs = 0, splits = 4 } = opts;
  const events = [];
  for (let i = 0; i < chunks; i++) events.push(`data: ${chunkJson(` tok${i % 10}`, null)}\n\n`);
  events.push(`data: ${chunkJson(null, 'length')}\n\n`);
  const usage = { prompt_tokens: 8, completion_tokens: chunks, total_tokens: chunks + 8 };
  events.push(`data: ${JSON.stringify({ id: 'chatcmpl-bench', choices: [], usage })}\n\n`);
  events.push('data: [DONE]\n\n');
  // burst mode: the whole body prebuilt once, written in `splits` pieces.
  const whole = Buffer.from(events.join(''));
  const pieces = [];
  const step = Math.ceil(whole.length / splits);
  for (let i = 0; i < whole.length; i += step) pieces.push(whole.subarray(i, i + step));

  /** id → { recv, writes[] } */
  const records = new Map();
  const headers = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };

  const server = createServer((req, res) => {
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"object":"list","data":[{"id":"bench-model"}]}');
      return;
    }
    const parts = [];
    req.on('data', (c) => parts.push(c));
    req.on('end', () => {
      const recv = performance.now();
      if (mode === 'burst') {
        res.writeHead(200, headers);
        let i = 0;
        const next = () => {
          if (res.destroyed) return;
          if (i === pieces.length - 1) res.end(pieces[i]);
          else {
            res.write(pieces[i++]);
            setImmediate(next);
          }
        };
        next();
        return;
      }
      let id = '';
      try {
        id = JSON.parse(Buffer.concat(parts).toString()).messages[0].content;
      } catch {}
      const writes = [];
      records.set(id, { recv, writes });
      res.writeHead(200, headers);
      let i = 0;
      const tick = () => {
        if (res.destroyed) return;
        if (i < chunks) {
          writes.push(performance.now());
          res.write(events[i++]);
          setTimeout(tick, gapMs);
        } else {
          res.end(events.slice(chunks).join(''));
        }
      };
      setTimeout(tick, ttftMs);
    });
  });
  server.keepAliveTimeout = 120_000;
  server.headersTimeout = 0;
  server.requestTimeout = 0;
  server.maxRequestsPerSocket = 0;
  server.listen(0, '127.0.0.1', () => {
    process.send({ type: 'ready', port: server.address().port });
  });
  process.on('message', (msg) => {
    if (msg.type === 'records') {
      process.send({ type: 'records', records: [...records] });
      records.clear();
    } else if (msg.type === 'close') {
      server.closeAllConnections();
      server.close(() => process.exit(0));
    }
  });
}

const FLAG = '--bench-stream-server';
if (process.argv[2] === FLAG && process.send) runServer(JSON.parse(process.argv[3]));

/** Start the server in a child process. */
export async function startStreamServer(opts) {
  const child = fork(fileURLToPath(import.meta.url), [FLAG, JSON.stringify(opts)], {
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const port = await new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('message', (m) => resolve(m.port));
  });
  const ask = (type) =>
    new Promise((resolve) => {
      const on = (m) => {
        if (m.type === type) {
          child.off('message', on);
          resolve(m);
        }
      };
      child.on('message', on);
      child.send({ type });
    });
  return {
    url: `http://127.0.0.1:${port}`,
    /** Map id → { recv, writes[] } of the paced requests since the last call. */
    async records() {
      return new Map((await ask('records')).records);
    },
    async close() {
      child.send({ type: 'close' });
      await new Promise((r) => child.once('exit', r));
    },
  };
}
