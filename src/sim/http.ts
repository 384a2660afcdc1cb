/**
 * Small HTTP helpers for the simulator's server: body reading with a size cap, JSON and
 * OpenAI-shaped error responses, bearer-key checks.
 *
 * @module
 */

import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { openAiError } from './sse.js';

const MAX_BODY_BYTES = 64 * 1024 * 1024;

/** Read the whole request body as text; rejects past MAX_BODY_BYTES. */
export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error('request body too large'));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
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
