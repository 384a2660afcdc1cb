/**
 * A loopback server that misbehaves on purpose, one behaviour per case: it echoes the
 * request's Authorization header back in every place a server string can reach goodput
 * (error bodies, non-JSON stream events, stream error objects, a finish_reason, a non-JSON
 * answer), at a chosen offset so that every cut the client makes falls inside the key; it
 * redirects; it sends values that cannot be true. Otherwise it answers like a small healthy
 * OpenAI-compatible server (GET /v1/models, streamed chat completions).
 *
 * The i-th completion request is answered by `cases[i % cases.length]`, so one run of N
 * requests walks through N cases.
 *
 * @module
 */

import type { ServerResponse } from 'node:http';
import { chatChunk, json, type Loopback, startLoopback } from './loopback.js';

/** Where an echoed Authorization header is put. */
export type EchoPlace =
  /** `{"error":{"message":"xxx…Bearer key"}}` with status 400 (cut at 300). */
  | 'error-json'
  /** A text/plain 400 body (cut at 300). */
  | 'error-text'
  /** A 200 stream whose event is not JSON (cut at 120). */
  | 'sse-not-json'
  /** A 200 stream carrying `{"error":{"message":…}}` (cut at 300). */
  | 'sse-error-object'
  /** A healthy stream whose finish_reason is the echo (cut at 64). */
  | 'finish-reason'
  /** A 200 application/json answer that is not JSON (cut at 120). */
  | 'json-not-json'
  /** A redirect whose Location carries the echo. */
  | 'redirect-location';

export type HostileCase =
  | { kind: 'healthy' }
  | { kind: 'echo'; place: EchoPlace; offset: number }
  | { kind: 'redirect'; status: number; location?: string }
  | {
      kind: 'impossible';
      what: 'null-choice' | 'negative-usage' | 'huge-usage' | 'string-usage' | 'float-usage';
    };

/** The cut each place is subject to in the client (characters of server text kept). */
export const CUT_OF: Record<EchoPlace, number> = {
  'error-json': 300,
  'error-text': 300,
  'sse-not-json': 120,
  'sse-error-object': 300,
  'finish-reason': 64,
  'json-not-json': 120,
  'redirect-location': 200,
};

/**
 * Every echo case whose cut falls inside (or just around) the echoed `Bearer <key>`: offsets
 * from `cut - echo length - 2` to `cut + 2`, for each place.
 */
export function echoCasesAtEveryCut(
  key: string,
  places: EchoPlace[] = Object.keys(CUT_OF) as EchoPlace[],
): HostileCase[] {
  const echoLen = `Bearer ${key}`.length;
  const out: HostileCase[] = [];
  for (const place of places) {
    const cut = CUT_OF[place];
    for (let offset = Math.max(0, cut - echoLen - 2); offset <= cut + 2; offset++) {
      out.push({ kind: 'echo', place, offset });
    }
  }
  return out;
}

export interface HostileServer extends Loopback {
  /** Completion requests answered so far. */
  completions: number;
  /** Replace the cases (the next request takes cases[completions % length]). */
  setCases(cases: HostileCase[]): void;
}

const MODEL = 'hostile-model';

function healthyStream(res: ServerResponse, finish = 'stop'): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.write(`data: ${chatChunk({ role: 'assistant', content: 'hello' })}\n\n`);
  res.write(`data: ${chatChunk({ content: ' world' })}\n\n`);
  res.write(`data: ${chatChunk({}, finish, { prompt_tokens: 4, completion_tokens: 2 })}\n\n`);
  res.end('data: [DONE]\n\n');
}

function echo(res: ServerResponse, place: EchoPlace, offset: number, auth: string): void {
  const text = `${'x'.repeat(offset)}${auth} and more text after the echoed header`;
  switch (place) {
    case 'error-json':
      json(res, 400, { error: { message: text, type: 'invalid_request_error' } });
      return;
    case 'error-text':
      res.writeHead(400, { 'content-type': 'text/plain' });
      res.end(text);
      return;
    case 'sse-not-json':
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`data: ${text}\n\ndata: [DONE]\n\n`);
      return;
    case 'sse-error-object':
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`data: ${JSON.stringify({ error: { message: text } })}\n\ndata: [DONE]\n\n`);
      return;
    case 'finish-reason':
      healthyStream(res, text);
      return;
    case 'json-not-json':
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(text);
      return;
    case 'redirect-location':
      res.writeHead(307, { location: `http://127.0.0.1:1/${encodeURIComponent(text)}` });
      res.end();
      return;
  }
}

function impossible(res: ServerResponse, what: Extract<HostileCase, { kind: 'impossible' }>['what']): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.write(`data: ${chatChunk({ content: 'hi' })}\n\n`);
  const usage = (completion: unknown) =>
    JSON.stringify({ choices: [], usage: { prompt_tokens: 4, completion_tokens: completion } });
  switch (what) {
    case 'null-choice':
      res.write(`data: ${JSON.stringify({ choices: [null] })}\n\n`);
      break;
    case 'negative-usage':
      res.write(`data: ${usage(-5)}\n\n`);
      break;
    case 'huge-usage':
      res.write(`data: ${usage(1e308)}\n\n`);
      break;
    case 'string-usage':
      res.write(`data: ${usage('lots')}\n\n`);
      break;
    case 'float-usage':
      res.write(`data: ${usage(2.5)}\n\n`);
      break;
  }
  res.end('data: [DONE]\n\n');
}

/**
 * Starts the server on 127.0.0.1, port 0, answering with the given cases in turn. With
 * `echoKeyInModelId`, GET /v1/models lists the Authorization header as the first model id.
 */
export async function startHostileServer(
  initial: HostileCase[] = [{ kind: 'healthy' }],
  opts: { echoKeyInModelId?: boolean } = {},
): Promise<HostileServer> {
  let cases = initial;
  const state = { completions: 0 };
  const lb = await startLoopback((req, res) => {
    const path = (req.url ?? '').split('?')[0]!;
    if (req.method === 'GET' && path.endsWith('/models')) {
      const first = opts.echoKeyInModelId ? `model-${String(req.headers.authorization ?? '')}` : MODEL;
      json(res, 200, { object: 'list', data: [{ id: first, object: 'model' }] });
      return;
    }
    if (req.method !== 'POST' || !path.endsWith('/completions')) {
      json(res, 404, { error: { message: 'not found' } });
      return;
    }
    const c = cases[state.completions % cases.length]!;
    state.completions++;
    const auth = String(req.headers.authorization ?? '');
    switch (c.kind) {
      case 'healthy':
        healthyStream(res);
        return;
      case 'echo':
        echo(res, c.place, c.offset, auth);
        return;
      case 'redirect':
        res.writeHead(c.status, c.location === undefined ? {} : { location: c.location });
        res.end();
        return;
      case 'impossible':
        impossible(res, c.what);
        return;
    }
  });
  const server = lb as HostileServer;
  Object.defineProperty(server, 'completions', { get: () => state.completions });
  server.setCases = (next) => {
    cases = next;
    state.completions = 0;
  };
  return server;
}

/**
 * The parts of a key that must never appear: the whole key and every prefix and suffix of
 * six characters or more.
 */
export function keyFragments(key: string, min = 6): string[] {
  const out = new Set<string>();
  for (let n = min; n <= key.length; n++) {
    out.add(key.slice(0, n));
    out.add(key.slice(key.length - n));
  }
  return [...out];
}

/** The first fragment of the key found in the text, or undefined. */
export function leakedFragment(text: string, key: string): string | undefined {
  // Longest first, so a report names the worst leak.
  return keyFragments(key)
    .sort((a, b) => b.length - a.length)
    .find((f) => text.includes(f));
}
