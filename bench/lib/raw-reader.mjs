/**
 * The baseline the client is measured against: a minimal raw reader (undici Pool + line
 * split + JSON.parse, no bookkeeping beyond one timestamp per content chunk).
 *
 * @module
 */
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';

/**
 * Passes undici's calls through to the request's own handler, first noting when undici begins
 * to write the request on a connection (`onConnect`, the call goodput's client takes as its
 * `sentMs`, in the new handler API's name `onRequestStart`).
 */
class WriteTimed {
  constructor(handler, onWritten) {
    this.handler = handler;
    this.onWritten = onWritten;
  }
  onConnect(abort, context) {
    this.onWritten(performance.now());
    return this.handler.onConnect(abort, context);
  }
  onHeaders(statusCode, headers, resume, statusText) {
    return this.handler.onHeaders(statusCode, headers, resume, statusText);
  }
  onData(chunk) {
    return this.handler.onData(chunk);
  }
  onComplete(trailers) {
    return this.handler.onComplete(trailers);
  }
  onError(error) {
    return this.handler.onError(error);
  }
}

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
    /**
     * One streamed request: sent time (of the call) and the arrival time of each content chunk.
     * `onWritten(ms)`, when given, is called when undici begins to write the request on a
     * connection: the instant goodput's records call sent.
     */
    async send(body, onWritten) {
      const sent = performance.now();
      const opts = { method: 'POST', path: '/v1/chat/completions', headers, body };
      const res = await (onWritten
        ? pool.request.call(
            { dispatch: (o, handler) => pool.dispatch(o, new WriteTimed(handler, onWritten)) },
            opts,
          )
        : pool.request(opts));
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
