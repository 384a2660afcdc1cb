/**
 * Small HTTP helpers for the simulator's server: body reading with a size cap, JSON and
 * OpenAI-shaped error responses, bearer-key checks.
 *
 * @module
 */

import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { openAiError } from './sse.js';

/** Largest request body the simulator accepts (vLLM has no limit of its own; proxies use a few MiB). */
export const MAX_BODY_BYTES = 64 * 1024 * 1024;
/** Past this much discarded upload the connection is cut rather than drained. */
const MAX_DRAIN_BYTES = 1024 * 1024 * 1024;

/** A request body over the limit: the caller answers 413. */
export class BodyTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`request body larger than ${limit} bytes`);
  }
}

/**
 * Read the whole request body as text. Past `maxBytes` it rejects with {@link BodyTooLarge},
 * but only once the upload has ended: the rest is read and discarded, so the client gets the
 * 413 answer rather than a reset (closing a socket with unread data sends RST).
 */
export function readBody(req: IncomingMessage, maxBytes = MAX_BODY_BYTES): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const declared = Number(req.headers['content-length']);
    let tooLarge = Number.isFinite(declared) && declared > maxBytes;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > maxBytes) tooLarge = true;
      if (tooLarge) {
        chunks.length = 0;
        if (size > MAX_DRAIN_BYTES) req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () =>
      tooLarge ? reject(new BodyTooLarge(maxBytes)) : resolve(Buffer.concat(chunks).toString('utf8')),
    );
    req.on('error', reject);
  });
}

/** Send a JSON body with a status and optional extra headers. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** Send OpenAI's error shape. */
export function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  type: string,
  code: string | number | null,
  headers: Record<string, string> = {},
): void {
  sendJson(res, status, openAiError(message, type, code), headers);
}

/** True when the request carries `Authorization: Bearer <key>` with exactly this key (constant-time compare). */
export function hasKey(req: IncomingMessage, key: string): boolean {
  const auth = req.headers.authorization ?? '';
  const m = /^Bearer\s+(.+)$/i.exec(auth);
  if (!m) return false;
  const given = Buffer.from(m[1]!.trim());
  const want = Buffer.from(key);
  return given.length === want.length && timingSafeEqual(given, want);
}
