/**
 * The baseline the client is measured against: a minimal raw reader (undici Pool + line
 * split + JSON.parse, no bookkeeping beyond one timestamp per content chunk).
 *
 * @module
 */
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';

export function createRawReader(baseUrl, connections) {
  const pool = new Pool(baseUrl, {
    connections,
    pipelining: 1,
    keepAliveTimeout: 60_000,
    headersTimeout: 0,
    bodyTimeout: 0,
  });
  const headers = { 'content-type': 'application/json', accept: 'text/event-stream' };
  return {
    /** Open n connections before the clock starts. */
    async warmup(n) {
      await Promise.all(
        Array.from({ length: n }, () =>
          pool.request({ method: 'GET', path: '/v1/models' }).then((r) => r.body.dump()),
        ),
      );
    },
    /** One streamed request: sent time and the arrival time of each content chunk. */
    async send(body) {
      const sent = performance.now();
      const res = await pool.request({ method: 'POST', path: '/v1/chat/completions', headers, body });
      const chunks = [];
      let buf = '';
      for await (const part of res.body) {
        const now = performance.now();
        buf += part.toString();
        let start = 0;
        let nl = buf.indexOf('\n', start);
        while (nl !== -1) {
          const line = buf.slice(start, nl);
          start = nl + 1;
          if (line.startsWith('data: ') && line !== 'data: [DONE]') {
            const event = JSON.parse(line.slice(6));
            if (event.choices?.[0]?.delta?.content) chunks.push(now);
          }
          nl = buf.indexOf('\n', start);
        }
        buf = buf.slice(start);
      }
      return { sent, chunks };
    },
    close: () => pool.close(),
  };
}
