/**
 * What each request asks: prompts, lengths, sampling, multi-turn sessions, simulated users
 * who give up.
 *
 * @module
 */

import { MAX_TOKENS } from '../../util/index.js';
import { DAY_MS } from './bounds.js';
import { defineOptions } from './table.js';

/** The longest prompt or output the simulator and the prompt builder are asked to make. */
export const TOKEN_BOUNDS = { max: MAX_TOKENS, why: 'longer than any model context' } as const;

/** What each request asks: prompts, lengths, sampling, simulated users who give up. */
export const WORKLOAD_OPTIONS = defineOptions({
  class: {
    type: 'string',
    repeatable: true,
    valueName: 'K=V,…',
    group: 'Workload',
    description:
      "A traffic class (repeatable): name=, share= (open loop: of the requests and arrival rate; closed loop: of the users; --session-rate: of the sessions started; shares add up to 1), and any of prompt-tokens=, prompt-tokens-dist= (empirical:FILE too), max-tokens=, max-tokens-dist=, system-prompt-tokens=, tools=N|FILE, tool-choice=, turns=, turn-tokens=, think-time= (sessions runs), slo-ttft=, slo-tpot=, slo-e2el=, slo-user-tps= (over the run's), priority= (sent as vLLM's priority field: lower first), model= (another model or LoRA adapter), e.g. --class name=chat,share=0.7,prompt-tokens=200,slo-ttft=500,priority=0",
  },
  promptTokens: {
    type: 'integer',
    ...TOKEN_BOUNDS,
    valueName: 'N',
    group: 'Workload',
    description: 'Synthetic prompt length in tokens (exact, counted with a real tokenizer) [default: 256]',
  },
  promptTokensRange: {
    type: 'number',
    min: 0,
    below: 1,
    says: 'in [0, 1)',
    valueName: 'R',
    group: 'Workload',
    description: 'Spread prompt lengths uniformly over ±R×prompt-tokens (e.g. 0.2)',
  },
  promptTokensDist: {
    type: 'string',
    valueName: 'DIST',
    group: 'Workload',
    description:
      'Synthetic prompt lengths drawn from a distribution: N, uniform:MIN-MAX, normal:mean=M,std=S, lognormal:mean=M,sigma=S (or median=M), empirical:FILE (a tokens,count histogram CSV or a trace); any with ,min=A,max=B (replaces --prompt-tokens)',
  },
  prefixGroups: {
    type: 'integer',
    valueName: 'N',
    group: 'Workload',
    description:
      "Synthetic prompts in N groups, each prompt its group's shared prefix of --prefix-tokens then --prompt-tokens of its own (vLLM bench's prefix repetition)",
  },
  prefixTokens: {
    type: 'integer',
    valueName: 'N',
    group: 'Workload',
    description: "With --prefix-groups: tokens of each group's prefix [default: 1024]",
  },
  promptsPerGroup: {
    type: 'integer',
    valueName: 'P',
    group: 'Workload',
    description:
      'With --prefix-groups: each prefix is shared by exactly P prompts, in rounds of N×P with fresh prefixes [default: each prompt takes one of the N prefixes at random]',
  },
  systemPromptTokens: {
    type: 'integer',
    ...TOKEN_BOUNDS,
    valueName: 'N',
    group: 'Workload',
    description: 'A shared system prompt of N tokens before every prompt (the long-system-prompt case)',
  },
  tokenizer: {
    type: 'string',
    valueName: 'FILE|NAME',
    group: 'Workload',
    description:
      "The model's Hugging Face tokenizer.json (or its folder, with tokenizer_config.json and the chat template): prompts are counted as the server counts them, and --prompt-tokens is the whole prompt, chat template included. Or an encoding: o200k_base, cl100k_base, … [default: o200k_base]",
  },
  chatTemplate: {
    type: 'string',
    valueName: 'FILE',
    group: 'Workload',
    description:
      "With --tokenizer FILE: the Jinja chat template the server uses, when it is not the tokenizer folder's (as vLLM's --chat-template)",
  },
  dataset: {
    type: 'string',
    valueName: 'FILE',
    group: 'Workload',
    description:
      'Prompts from a JSONL file ({"prompt"} or {"messages"} per line), ShareGPT JSON, an OpenAI batch input JSONL, or a Hugging Face datasets export (JSONL or Parquet)',
  },
  turns: {
    type: 'string',
    valueName: 'N|MIN-MAX',
    group: 'Workload',
    description:
      'Sessions: user turns per synthetic session, fixed (3) or uniform over a range (2-6) [default: 3]; a dataset gives each conversation its own',
  },
  turnTokens: {
    type: 'integer',
    min: 1,
    ...TOKEN_BOUNDS,
    valueName: 'N',
    group: 'Workload',
    description:
      'Sessions: tokens of each user message after the first (the first has --prompt-tokens) [default: --prompt-tokens]',
  },
  thinkTime: {
    type: 'string',
    valueName: 'DUR|exp:DUR',
    group: 'Workload',
    description:
      "Sessions: time between a reply and the user's next turn, fixed (2s) or exponential with that mean (exp:2s) [default: 0]",
  },
  maxTokens: {
    type: 'integer',
    min: 1,
    ...TOKEN_BOUNDS,
    valueName: 'N',
    group: 'Workload',
    description: 'Output limit per request (sent as max_tokens and max_completion_tokens) [default: 128]',
  },
  images: {
    type: 'integer',
    valueName: 'N',
    group: 'Workload',
    description:
      "Chat/Responses: N synthetic images (seeded, --image-size, --image-format) as data URLs after each request's last user message",
  },
  imagesDir: {
    type: 'string',
    valueName: 'DIR',
    group: 'Workload',
    description:
      "Chat/Responses: images from this folder's PNG, JPEG and WebP files (read once, at most 20 MiB a file and 256 MiB in all), drawn seeded per request, --images N of them (default 1), each as a data URL of its own type and size",
  },
  imageSize: {
    type: 'string',
    valueName: 'WxH',
    group: 'Workload',
    description: 'With --images: pixels of each image, e.g. 1024x768 (up to 4096 a side) [default: 512x512]',
  },
  imageFormat: {
    type: 'string',
    choices: ['png', 'jpeg'],
    group: 'Workload',
    description: 'With --images: PNG or JPEG (quality 85) [default: png]',
  },
  maxTokensDist: {
    type: 'string',
    valueName: 'DIST',
    group: 'Workload',
    description:
      "Each request's output limit drawn from a distribution (the grammar of --prompt-tokens-dist; empirical:FILE takes a trace's output lengths); replaces --max-tokens and a dataset's own",
  },
  ignoreEos: {
    type: 'boolean',
    group: 'Workload',
    description: 'Ask the server to ignore end-of-sequence so outputs reach --max-tokens (vLLM ignore_eos)',
  },
  temperature: {
    type: 'number',
    default: 0,
    group: 'Workload',
    description: 'Sampling temperature (recorded in the summary)',
  },
  topP: {
    type: 'number',
    min: 0,
    max: 1,
    group: 'Workload',
    description: 'Sampling top_p (recorded in the summary)',
  },
  seed: {
    type: 'integer',
    group: 'Workload',
    description:
      'Seed of every random choice (prompts, lengths, arrivals, cancels); sent as the sampling seed [default: 1]',
  },
  cancelAfterMs: {
    type: 'number',
    min: 0,
    max: DAY_MS,
    valueName: 'MS',
    group: 'Workload',
    description: 'Simulated users give up this many ms after sending: the request is aborted',
  },
  cancelRate: {
    type: 'number',
    min: 0,
    max: 1,
    says: 'between 0 and 1',
    valueName: 'P',
    group: 'Workload',
    description:
      'Fraction of requests (0..1) whose user gives up after --cancel-after-ms [default: 1 when --cancel-after-ms is set]',
  },
});
