/**
 * `POST /v1/embeddings` on the simulated engine: the inputs' tokens go through the engine as a
 * prefill (one request of all the inputs' tokens, one step of output that is not streamed),
 * so an embedding's latency grows with its length and with the load, as on a real server. The
 * answer is OpenAI's shape: `data[i].embedding` (a short deterministic vector per input) and
 * `usage.prompt_tokens`.
 *
 * @module
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GenerateContext } from './generate.js';
import { sendError } from './http.js';
import { hashString } from './rng.js';
import { EngineRejection } from './scheduler.js';
import { contentText, tokenIds } from './text.js';

/** Length of the simulated vectors (small: the point is the latency, not the vector). */
const DIMENSIONS = 8;

/** The inputs as texts, or why the body is not an embeddings request. */
function inputs(body: Record<string, unknown>): string[] | string {
  const input = body.input;
  if (typeof input === 'string') return [input];
  if (Array.isArray(input) && input.length > 0) {
    if (input.every((x) => typeof x === 'number')) return [input.join(',')];
    if (input.every((x) => typeof x === 'string')) return input as string[];
    if (input.every((x) => Array.isArray(x))) return (input as unknown[][]).map((x) => x.join(','));
    return [contentText(input.map((x) => ({ text: String(x) })))];
  }
  return 'input must be a string, an array of strings or an array of token ids';
}

function vector(text: string, seed: number): number[] {
  const out: number[] = [];
  for (let d = 0; d < DIMENSIONS; d++) out.push(((hashString(text, seed + d) % 2001) - 1000) / 1000);
  return out;
}

/** Handle POST /v1/embeddings once the body is parsed and the model checked. */
export function embed(
  ctx: GenerateContext,
  body: Record<string, unknown>,
  req: IncomingMessage,
  res: ServerResponse,
): void {
  const texts = inputs(body);
  if (typeof texts === 'string') {
    sendError(res, 400, texts, 'BadRequestError', 400);
    return;
  }
  const promptTokens = texts.reduce((n, t) => n + Math.max(1, tokenIds(t).length), 0);
  const { engine } = ctx.driver;
  const why = engine.check(promptTokens, 1);
  if (why) {
    sendError(res, 400, why, 'BadRequestError', 400);
    return;
  }
  const id = `embd-${ctx.nextId().toString(16).padStart(12, '0')}`;
  let done = false;
  res.on('close', () => {
    if (!done) {
      done = true;
      engine.clientGone(id, ctx.driver.now());
    }
  });
  try {
    engine.add(
      {
        id,
        promptTokens,
        promptBlockHashes: [],
        outputTokens: 1,
        finishReason: 'length',
        sink: {
          onToken() {},
          onFinish(r) {
            if (done || r.finishedAs === 'abort') return;
            done = true;
            const json = JSON.stringify({
              object: 'list',
              data: texts.map((t, index) => ({ object: 'embedding', index, embedding: vector(t, ctx.seed) })),
              model: ctx.model,
              usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
            });
            res.writeHead(200, {
              'content-type': 'application/json',
              'content-length': Buffer.byteLength(json),
            });
            res.end(json);
          },
        },
      },
      ctx.driver.now(),
    );
  } catch (e) {
    if (!(e instanceof EngineRejection)) throw e;
    done = true;
    sendError(res, 400, e.message, 'BadRequestError', 400);
    return;
  }
  req.socket.setNoDelay(true);
  ctx.driver.wake();
}
