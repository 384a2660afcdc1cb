/**
 * A chat template from a model folder (or --chat-template) is code from outside: before a run
 * renders it in the load generator's own thread, it renders two sample conversations in a
 * worker thread with a time bound, a heap bound and an output bound. `range(1000000000)`
 * killed V8, two nested `range(100000)` loops hung the process through SIGTERM and Ctrl-C; now
 * either is a usage error within the bound, and the worker is stopped.
 *
 * A template that raises on the samples (an unsupported role, say) passes the probe: that is
 * its own answer, reported per prompt when the run renders it.
 *
 * @module
 */

import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { GoodputError } from '../errors.js';

/** How long the two sample renders may take, together. */
export const TEMPLATE_PROBE_TIMEOUT_MS = 5000;
/** The longest output a sample render may give (a real chat template gives a few hundred characters). */
export const TEMPLATE_PROBE_MAX_CHARS = 1024 * 1024;
/** The worker's heap. */
const HEAP_MB = 256;

const SAMPLES = [
  [{ role: 'user', content: 'Hello.' }],
  [
    { role: 'system', content: 'You are a helpful assistant.' },
    { role: 'user', content: 'What is 2 + 2?' },
    { role: 'assistant', content: '4.' },
    { role: 'user', content: 'And 3 + 3?' },
  ],
];

const WORKER = `(() => {
const { parentPort, workerData } = require('node:worker_threads');
const { Template } = require(workerData.jinja);
let template;
try { template = new Template(workerData.text); } catch (e) { parentPort.postMessage({ raised: String(e && e.message) }); return; }
for (const messages of workerData.samples) {
  let out;
  try {
    out = template.render({ messages, add_generation_prompt: true, ...workerData.extra });
  } catch (e) {
    parentPort.postMessage({ raised: String(e && e.message) });
    return;
  }
  if (out.length > workerData.maxChars) { parentPort.postMessage({ tooLong: out.length }); return; }
}
parentPort.postMessage({ ok: true });
})();
`;

type ProbeAnswer = { ok: true } | { raised: string } | { tooLong: number };

/**
 * Renders the template on two sample conversations in a worker, bounded; throws E_USAGE when it
 * runs past the time or heap bound or writes more than the output bound.
 */
export async function probeChatTemplate(
  text: string,
  origin: string,
  extra: Record<string, unknown> = {},
  opts: { timeoutMs?: number; maxChars?: number } = {},
): Promise<void> {
  const timeoutMs = opts.timeoutMs ?? TEMPLATE_PROBE_TIMEOUT_MS;
  const maxChars = opts.maxChars ?? TEMPLATE_PROBE_MAX_CHARS;
  const jinja = createRequire(import.meta.url).resolve('@huggingface/jinja');
  const worker = new Worker(WORKER, {
    eval: true,
    workerData: { jinja, text, samples: SAMPLES, extra, maxChars },
    resourceLimits: { maxOldGenerationSizeMb: HEAP_MB, maxYoungGenerationSizeMb: 32 },
    stdout: true,
    stderr: true,
  });
  const refuse = (what: string) =>
    new GoodputError(
      'E_USAGE',
      `the chat template from ${origin} ${what} on a two-message prompt`,
      'a chat template renders a conversation in milliseconds: fix its loops, or give another with --chat-template FILE',
    );
  try {
    const answer = await new Promise<ProbeAnswer>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(refuse(`did not finish within ${timeoutMs / 1000} s`)),
        timeoutMs,
      );
      worker.once('message', (m: ProbeAnswer) => {
        clearTimeout(timer);
        resolve(m);
      });
      worker.once('error', (e: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        reject(
          e.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? refuse(`used more than ${HEAP_MB} MB`)
            : refuse(`failed (${e.message})`),
        );
      });
      worker.once('exit', (code) => {
        clearTimeout(timer);
        reject(refuse(`stopped its worker (exit ${code})`));
      });
    });
    if ('tooLong' in answer) {
      throw refuse(`wrote ${answer.tooLong} characters (more than ${maxChars})`);
    }
  } finally {
    await worker.terminate();
  }
}
