/**
 * Multi-turn sessions with `--tokenizer FILE` against the embedded engine: every turn's
 * promptTokens is the whole conversation so far (system prompt, user turns, the engine's
 * actual replies, the new turn) through the chat template, as vLLM counts usage.prompt_tokens.
 * The embedded engine counts o200k without a template, so the check is by hand: the tokenizer
 * is the WordLevel ChatML fixture, where a special token is one token and so is every word.
 * Live (a proxy on port 0 keeps the bodies): each body rendered with the template and counted
 * by hand. Virtual and live: the template's arithmetic, turn after turn — the first turn is
 * --prompt-tokens + --system-prompt-tokens, and each later one adds the reply's tokens (one a
 * word), 1 to close it, and 2 + --turn-tokens + 1 for the new user message and 2 for the
 * generation prompt.
 *
 * @module
 */

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Template } from '@huggingface/jinja';
import { afterAll, describe, expect, it } from 'vitest';
import { collect, readRecords } from '../src/results/index.js';
import { startSim } from '../src/sim/index.js';
import type { RequestRecord } from '../src/types.js';
import { runCliInProcess } from './helpers/cli.js';
import { recordingProxy } from './helpers/recording-proxy.js';
import { CHATML_TEMPLATE, countWordLevelChatml, writeTokenizerFolder } from './helpers/tokenizer-fixture.js';

const closers: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const c of closers.splice(0)) await c();
});

const ARGS = [
  ...['--tokenizer', 'words-chatml', '--sessions', '1', '--turns', '3'],
  ...['--prompt-tokens', '60', '--system-prompt-tokens', '10', '--turn-tokens', '12'],
  ...['--max-tokens', '9', '--requests', '6', '--warmup', '0', '--seed', '5', '--quiet'],
];

async function run(args: string[]): Promise<RequestRecord[]> {
  const dir = await mkdtemp(join(tmpdir(), 'goodput-session-tok-'));
  closers.push(() => rm(dir, { recursive: true, force: true }));
  writeTokenizerFolder(dir, 'words-chatml', 'wordlevel-chatml');
  const out = join(dir, 'r');
  const r = await runCliInProcess(['run', ...ARGS, ...args, '--out', out], { cwd: dir });
  expect(r.code, r.stderr).toBe(0);
  const records = await collect(readRecords(out));
  return records.sort((a, b) => a.index - b.index);
}

/** The template's arithmetic, checked on the records of one-user sessions in order. */
function checkTurns(records: RequestRecord[]): void {
  expect(records.map((r) => r.turn)).toEqual([1, 2, 3, 1, 2, 3]);
  for (const [i, r] of records.entries()) {
    expect(r.outcome).toBe('success');
    if (r.turn === 1) {
      expect(r.promptTokens).toBe(70);
      continue;
    }
    const before = records[i - 1]!;
    expect(before.outputTokens).toBeGreaterThan(0);
    expect(r.promptTokens, `turn ${r.turn} of ${r.sessionId}`).toBe(
      before.promptTokens + before.outputTokens + 1 + (2 + 12 + 1) + 2,
    );
  }
}

describe('session turns with --tokenizer FILE, counted as the server counts them', () => {
  it('live: each turn is the rendered conversation, the engine replies included', async () => {
    const sim = await startSim({ seed: 1 });
    closers.push(() => sim.close());
    const proxy = await recordingProxy(sim.url);
    closers.push(() => proxy.close());
    const records = await run(['--url', proxy.url]);
    checkTurns(records);
    // One user: the bodies arrive in the order the records were sent.
    expect(proxy.bodies).toHaveLength(6);
    const template = new Template(CHATML_TEMPLATE);
    for (const [i, r] of records.entries()) {
      const messages = proxy.bodies[i]!.messages;
      expect(messages.filter((m) => m.role === 'assistant')).toHaveLength((r.turn ?? 1) - 1);
      const rendered = template.render({ messages, add_generation_prompt: true, bos_token: '<s>' });
      expect(r.promptTokens, `record ${i}`).toBe(countWordLevelChatml(rendered));
      // The engine counts the contents alone, in o200k: its own usage is another number.
      expect(r.serverPromptTokens).not.toBe(r.promptTokens);
    }
  }, 60_000);

  it('virtual time: the same turns on the simulated clock', async () => {
    checkTurns(await run(['--time', 'virtual']));
  }, 60_000);
});
