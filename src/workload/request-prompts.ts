/**
 * The prompt of each single request of a workload (sessions build their turns in sessions.ts),
 * one filler per kind of workload: synthetic text of a drawn length after an optional shared
 * prefix, a dataset's entries in their seeded order, a trace's requests at their recorded
 * times. A filler writes the request's text and its prompt (and output) token counts into the
 * item createWorkload has started; every random choice forks by purpose and index, so item i
 * is the same whatever order the items are asked in.
 *
 * @module
 */

import type { ChatMessage, WorkItem, WorkloadSpec } from '../types.js';
import { conversationAffinityId } from './affinity.js';
import type { DatasetEntry } from './dataset.js';
import { drawLength, type LengthDist } from './length-dist.js';
import type { PrefixGroups } from './prefix-groups.js';
import { type BuildPrompt, fitPromptFrame, type PromptFrame } from './prompt-frame.js';
import type { Rng } from './rng.js';
import { promptLength, shortestPromptLength, syntheticPrompt } from './synthetic.js';
import { countPromptTokens, type Tokenizer } from './tokenizer.js';
import type { TraceReplay } from './trace/replay.js';
import { usage } from './workload-checks.js';

/** Writes request i's prompt, its prompt token count and (where the source has one) its output length. */
export type FillPrompt = (i: number, item: WorkItem) => void;

/** The request of a system text and a user text: chat messages for chat and Responses, one prompt for completions. */
export function promptBuilder(api: WorkloadSpec['api']): BuildPrompt {
  return (system: string, user: string): { messages?: ChatMessage[]; prompt?: string } => {
    if (api !== 'chat' && api !== 'responses') return { prompt: system + user };
    const messages: ChatMessage[] = [];
    if (system !== '') messages.push({ role: 'system', content: system });
    messages.push({ role: 'user', content: user });
    return { messages };
  };
}

/**
 * The chat template's frame around a synthetic prompt (prompt-frame.ts), refused when the
 * shortest prompt of --prompt-tokens leaves no room for a word after it. A model's own
 * tokenizer counts the chat template too: --prompt-tokens is the whole prompt as the server
 * counts it, so the user text is that much shorter. A synthetic session's first turn is such
 * a prompt (later turns are counted through the template as they are built: turn-count.ts);
 * trace replays build their own prompts: their words are counted.
 */
export function syntheticPromptFrame(
  spec: WorkloadSpec,
  tokenizer: Tokenizer,
  build: BuildPrompt,
  system: { text: string; tokens: number },
  promptDist: LengthDist | undefined,
): PromptFrame | undefined {
  const frame = fitPromptFrame(tokenizer, build, system.text, system.tokens);
  const overhead = frame?.overhead ?? 0;
  if (frame && !promptDist) {
    const shortest = shortestPromptLength(spec.promptTokens!, spec.promptTokensRange ?? 0);
    if (shortest - overhead < 1) {
      throw usage(
        `${spec.promptTokensRange ? `the shortest prompts of --prompt-tokens ${spec.promptTokens} ±${spec.promptTokensRange}, ${shortest} tokens,` : `--prompt-tokens ${shortest}`} leave no room for the words: the chat template of ${tokenizer.name} alone takes ${overhead} token(s)`,
        `--prompt-tokens counts the whole prompt, template included: pass at least ${overhead + 1}`,
      );
    }
  }
  return frame;
}

/** What the synthetic prompts are drawn from. */
export interface SyntheticPromptInputs {
  spec: WorkloadSpec;
  tokenizer: Tokenizer;
  root: Rng;
  systemTokens: number;
  frame: PromptFrame | undefined;
  prefixGroups: PrefixGroups | undefined;
  promptDist: LengthDist | undefined;
  /** Writes the system prompt and the user text into the item. */
  toRequest: (user: string, item: WorkItem) => void;
}

/**
 * Synthetic prompts of exactly spec.promptTokens tokens (spread by promptTokensRange, or drawn
 * from --prompt-tokens-dist), each after its prefix group's shared words when there are groups.
 */
export function syntheticPrompts(inputs: SyntheticPromptInputs): FillPrompt {
  const { spec, tokenizer, root, systemTokens, frame, prefixGroups, promptDist, toRequest } = inputs;
  const overhead = frame?.overhead ?? 0;
  const lengthStreams = root.fork('length');
  const promptStreams = root.fork('prompt');
  const prefixStreams = root.fork('prefix');
  const prefixMemo = new Map<number, string>();
  // Every prompt of a group starts with the same words, drawn once per prefix id.
  function prefixText(id: number): string {
    let text = prefixMemo.get(id);
    if (text === undefined) {
      if (prefixMemo.size >= 4 * spec.prefixGroups!.groups) prefixMemo.clear();
      text = syntheticPrompt(spec.prefixGroups!.prefixTokens, prefixStreams.fork(id), tokenizer, {
        unique: id,
        ...(frame ? { pool: frame.pool } : {}),
      });
      prefixMemo.set(id, text);
    }
    return text;
  }
  return (i, item) => {
    // A drawn length leaves room for at least one word after the chat template's tokens.
    const length = promptDist
      ? Math.max(overhead + 1, drawLength(promptDist, lengthStreams.fork(i)))
      : promptLength(spec.promptTokens!, spec.promptTokensRange ?? 0, lengthStreams.fork(i));
    const own = syntheticPrompt(length - overhead, promptStreams.fork(i), tokenizer, {
      unique: i,
      ...(frame ? { pool: frame.pool } : {}),
    });
    const prefix = prefixGroups ? prefixText(prefixGroups.groupOf(i).id) : '';
    toRequest(prefix + own, item);
    item.promptTokens = systemTokens + (prefixGroups ? spec.prefixGroups!.prefixTokens : 0) + length;
  };
}

/** What a dataset's requests are taken from. */
export interface DatasetPromptInputs {
  api: WorkloadSpec['api'];
  tokenizer: Tokenizer;
  entries: readonly DatasetEntry[];
  /** The seeded order of the entries; undefined: file order. */
  order: Uint32Array | undefined;
  systemText: string;
  /** Take each entry's output length (its max_tokens, or its reply's token count). */
  outputFromDataset: boolean;
  toRequest: (user: string, item: WorkItem) => void;
}

/** A dataset's entries, cycled through in their order: chat entries keep their messages after the shared system prompt. */
export function datasetPrompts(inputs: DatasetPromptInputs): FillPrompt {
  const { api, tokenizer, entries, order, systemText, outputFromDataset, toRequest } = inputs;
  const promptTokenMemo = new Map<number, number>();
  const outputTokenMemo = new Map<number, number>();
  return (i, item) => {
    const e = order ? order[i % order.length]! : i % entries.length;
    const entry = entries[e]!;
    if (entry.messages && (api === 'chat' || api === 'responses')) {
      item.messages =
        systemText !== '' ? [{ role: 'system', content: systemText }, ...entry.messages] : entry.messages;
    } else {
      toRequest(entry.prompt ?? entry.messages!.map((m) => m.content).join('\n'), item);
    }
    // The shared system prompt is the same for every item, so the count is memoised per entry.
    let prompt = promptTokenMemo.get(e);
    if (prompt === undefined) {
      prompt = countPromptTokens(item, tokenizer);
      promptTokenMemo.set(e, prompt);
    }
    item.promptTokens = prompt;
    if (outputFromDataset) {
      let output = entry.outputTokens ?? outputTokenMemo.get(e);
      if (output === undefined && entry.reply !== undefined) {
        output = Math.max(1, tokenizer.count(entry.reply));
        outputTokenMemo.set(e, output);
      }
      if (output !== undefined) item.maxTokens = output;
    }
  };
}

/** A trace's requests (trace/replay.ts) at their recorded times, with their lengths and conversations. */
export function replayPrompts(
  replay: TraceReplay,
  run: { seed: number; warmup: number; outputFromDataset: boolean },
  toRequest: (user: string, item: WorkItem) => void,
): FillPrompt {
  return (i, item) => {
    const r = replay.request(i, run.warmup);
    toRequest(r.prompt, item);
    item.promptTokens = r.promptTokens;
    if (run.outputFromDataset) item.maxTokens = r.outputTokens;
    if (r.scheduledMs !== undefined) item.scheduledMs = r.scheduledMs;
    // The trace's conversations, for routers with session affinity (affinity.ts).
    if (r.conversation !== undefined)
      item.affinityId = conversationAffinityId(run.seed, `t-${r.conversation}`);
  };
}
