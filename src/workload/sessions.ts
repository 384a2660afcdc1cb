/**
 * Multi-turn sessions: the scripts of the conversations a run replays turn by turn.
 *
 * A session is a conversation of N user turns. Its script says how many turns it has, how
 * long the user thinks before each, and builds each turn's request from the replies the server
 * actually sent for the earlier turns: the request of turn t carries the system prompt, every
 * earlier user message and every earlier reply, then the new user message, so a server's
 * prefix cache sees what it would see in production. The runner (runner/sessions.ts) keeps the
 * replies and decides when each turn is sent.
 *
 * Deterministic like every workload: session s's turn count, user messages, output lengths and
 * think times come from streams forked by purpose, session and turn ("42/session-prompt/3/1"),
 * whatever order the runner asks in.
 *
 * Prompt tokens (each turn's `promptTokens`, what the server reports as usage.prompt_tokens):
 * - the default tokenizer (no chat template): counted per part (system prompt, each user
 *   message, each reply: each counted once) and summed, so a long conversation is not
 *   tokenised again at every turn;
 * - a model's own tokenizer (`--tokenizer FILE`, `countPrompt`): the whole conversation so far
 *   (system, user turns, the server's replies, the new user turn) rendered through the chat
 *   template and counted when the turn is built, as the server counts it: a template's role
 *   markers and a reply's merges with them are not sums of parts. Only the text new since the
 *   last turn is encoded, the rest is remembered between the template's special tokens
 *   (turn-count.ts, exact, checked against the whole count). The first synthetic turn is
 *   `--prompt-tokens` through the template as a single-turn prompt is (the prompt frame's
 *   overhead comes off its words, so it is not tokenised); each later user message is
 *   `--turn-tokens` tokens of the tokenizer, of words that keep their count in the template.
 *
 * @module
 */

import { GoodputError } from '../errors.js';
import type { ChatMessage, SessionWorkloadSpec, WorkItem, WorkloadSpec } from '../types.js';
import { conversationAffinityId } from './affinity.js';
import type { ArrivalSchedule } from './arrivals.js';
import type { Conversation, ConversationTurn } from './conversation.js';
import type { DatasetEntry } from './dataset.js';
import type { PromptFrame } from './prompt-frame.js';
import type { Rng } from './rng.js';
import { promptLength, syntheticPrompt } from './synthetic.js';
import type { Tokenizer } from './tokenizer.js';
import { createTurnCounting, type TurnCounting } from './turn-count.js';

/** One conversation as the runner replays it. */
export interface SessionScript {
  /** "s-000001" for session 0; "w-000001" for warmup session 0. */
  readonly id: string;
  /** Number of user turns (≥ 1). */
  readonly turns: number;
  /** Think time before turn t (0-based, t ≥ 1) after the reply to turn t−1, ms. */
  thinkMs(t: number): number;
  /**
   * The request of turn t (0-based): the conversation so far with `replies[0..t-1]` (the
   * server's replies to the earlier turns, as received) and the new user message.
   */
  request(t: number, replies: readonly string[], index: number, warmup: boolean): WorkItem;
}

/** The sessions of a run: session s for any s ≥ 0 (datasets are cycled in a seeded order). */
export interface SessionSource {
  /** `cls`: with traffic classes, the session as one of that class (a closed loop's user's). */
  session(s: number, cls?: number): SessionScript;
  /** A warmup session (its own ids and prompts, never a measured session's). */
  warmup(w: number): SessionScript;
  /** Open loop over sessions (a session rate): session s starts this long after the measured start, ms. */
  startMs?: (s: number) => number;
}

export interface SessionSourceInput {
  spec: WorkloadSpec;
  sessions: SessionWorkloadSpec;
  tokenizer: Tokenizer;
  root: Rng;
  /** The shared system prompt (--system-prompt-tokens), '' for none. */
  systemText: string;
  systemTokens: number;
  /** Dataset conversations, visited in this order (indices into entries). */
  entries?: readonly DatasetEntry[];
  order?: Uint32Array;
  /** Take each turn's output length from the dataset (else spec.maxTokens). */
  outputFromDataset: boolean;
  /** Open loop over sessions: their arrival times. */
  arrivals?: Pick<ArrivalSchedule, 'offsetAt'>;
  /**
   * A model's own tokenizer, synthetic sessions: the frame of a one-turn prompt (prompt-frame.ts).
   * The first user message is its overhead shorter, and synthesised messages take its words.
   */
  frame?: PromptFrame;
  /** Hears what the user should know (counting turns whole after all: turn-count.ts). */
  note?: (text: string) => void;
}

/** "s-000001" for session 0. */
export function sessionId(s: number, prefix = 's'): string {
  return `${prefix}-${String(s + 1).padStart(6, '0')}`;
}

function usage(message: string, hint: string): GoodputError {
  return new GoodputError('E_USAGE', message, hint);
}

/** Checks the session part of a spec (flags are checked earlier; this guards the library API). */
export function checkSessionSpec(s: SessionWorkloadSpec): void {
  const t = s.turns;
  if (t && !(Number.isInteger(t.min) && Number.isInteger(t.max) && t.min >= 1 && t.max >= t.min)) {
    throw usage(
      `--turns must be N or MIN-MAX with 1 ≤ MIN ≤ MAX, got ${t.min}-${t.max}`,
      'e.g. --turns 3 or --turns 2-6',
    );
  }
  if (s.turnTokens !== undefined && !(Number.isInteger(s.turnTokens) && s.turnTokens >= 1)) {
    throw usage(`--turn-tokens must be a whole number ≥ 1, got ${s.turnTokens}`, 'e.g. --turn-tokens 128');
  }
  const think = s.thinkTime;
  if (think && !(Number.isFinite(think.meanMs) && think.meanMs >= 0)) {
    throw usage(
      `--think-time must be ≥ 0, got ${think.meanMs} ms`,
      'e.g. --think-time 2s or --think-time exp:2s',
    );
  }
}

/** A think time drawn for (session, turn): fixed, or exponential with the given mean. */
function drawThink(spec: SessionWorkloadSpec, rng: Rng): number {
  const think = spec.thinkTime;
  if (!think || think.meanMs <= 0) return 0;
  if (think.dist === 'fixed') return think.meanMs;
  return -think.meanMs * Math.log(1 - rng.next());
}

/** A dataset run replays conversations: each needs a user turn, or there is nothing to replay. */
function checkDatasetConversations(entries: readonly DatasetEntry[] | undefined): void {
  for (const e of entries ?? []) {
    if (e.prompt !== undefined) continue; // a single prompt is a one-turn session
    const c = e.conversation;
    if (!c || c.turns.length === 0) {
      const where = c?.source ?? 'the dataset';
      throw new GoodputError(
        'E_DATASET',
        `${where}: field "${e.messages ? 'messages' : 'conversations'}": no user turn, so there is no session to replay`,
        'every conversation needs at least one user ("human") message; remove or fix that line',
      );
    }
  }
}

/** What every session of a run shares: the input, the random streams by purpose, the turn counting. */
interface SessionRun {
  readonly input: SessionSourceInput;
  readonly turnStreams: Rng;
  readonly lengthStreams: Rng;
  readonly promptStreams: Rng;
  readonly thinkStreams: Rng;
  /** The word pool of synthesised messages (the frame's, with a model's own tokenizer). */
  readonly pool: { pool?: PromptFrame['pool'] };
  /**
   * With a model's own tokenizer every turn but a framed first one is counted through the
   * template, by its new text only (turn-count.ts).
   */
  readonly counting: TurnCounting | undefined;
}

/** One user turn of a session: its text, its tokens, the output length it asks for. */
interface UserTurn {
  text: string;
  tokens: number;
  maxTokens: number;
}

/**
 * A user message of `tokens` tokens. The first turn's opens with the session's number, so no
 * two sessions share more than the system prompt; later turns follow distinct histories.
 */
function synthUser(
  run: SessionRun,
  key: string,
  s: number,
  t: number,
  tokens: number,
  unique: number,
): string {
  return syntheticPrompt(
    tokens,
    run.promptStreams.fork(key).fork(s).fork(t),
    run.input.tokenizer,
    t === 0 ? { unique, ...run.pool } : run.pool,
  );
}

/**
 * The conversation session s replays (a dataset's, a single prompt as a one-turn one; none for
 * synthetic sessions) and its number of turns (drawn for synthetic sessions).
 */
function sessionShape(
  run: SessionRun,
  key: string,
  s: number,
): { turns: number; conversation: Conversation | undefined } {
  const { spec, sessions, entries, order } = run.input;
  if (spec.kind === 'dataset') {
    const e = order ? order[s % order.length]! : s % entries!.length;
    const entry = entries![e]!;
    const conversation = entry.conversation ?? {
      source: '',
      turns: [
        { user: entry.prompt ?? '', ...(entry.outputTokens ? { outputTokens: entry.outputTokens } : {}) },
      ],
    };
    return { turns: conversation.turns.length, conversation };
  }
  const range = sessions.turns ?? { min: 1, max: 1 };
  const turns =
    range.min +
    run.turnStreams
      .fork(key)
      .fork(s)
      .int(range.max - range.min + 1);
  return { turns, conversation: undefined };
}

/** User turn t of session s: the dataset's (its output length too if asked), or synthesised. */
function userTurn(
  run: SessionRun,
  conversation: Conversation | undefined,
  key: string,
  s: number,
  t: number,
  unique: number,
): UserTurn {
  const { spec, sessions, tokenizer, frame } = run.input;
  if (conversation) {
    const turn: ConversationTurn = conversation.turns[t]!;
    const text = turn.user ?? synthUser(run, key, s, t, turn.userTokens!, unique);
    const tokens = turn.user !== undefined ? tokenizer.count(text) : turn.userTokens!;
    let maxTokens = spec.maxTokens;
    if (run.input.outputFromDataset) {
      const out =
        turn.outputTokens ??
        (turn.reply !== undefined ? Math.max(1, tokenizer.count(turn.reply)) : undefined);
      if (out !== undefined) maxTokens = out;
    }
    return { text, tokens, maxTokens };
  }
  const n =
    t === 0
      ? promptLength(spec.promptTokens!, spec.promptTokensRange ?? 0, run.lengthStreams.fork(key).fork(s))
      : (sessions.turnTokens ?? spec.promptTokens!);
  // The first turn's n counts through the template: its words are the frame's overhead fewer.
  const words = t === 0 ? n - (frame?.overhead ?? 0) : n;
  return { text: synthUser(run, key, s, t, words, unique), tokens: n, maxTokens: spec.maxTokens };
}

/** The script of session s, `id`; `key` keeps run and warmup streams apart, `uniqueBase` their prompts. */
function sessionScript(
  run: SessionRun,
  id: string,
  key: string,
  s: number,
  uniqueBase: number,
): SessionScript {
  const { spec, sessions, tokenizer, root, systemText, systemTokens, frame } = run.input;
  const { turns, conversation } = sessionShape(run, key, s);
  const system = conversation?.system !== undefined ? systemText + conversation.system : systemText;
  const systemCount =
    conversation?.system !== undefined ? systemTokens + tokenizer.count(conversation.system) : systemTokens;
  // Per-part token counts of this session, each counted once.
  const users: UserTurn[] = [];
  const replyCounts: number[] = [];
  const counter = run.counting?.session();
  // One id for every turn, for routers with session affinity (affinity.ts).
  let affinityId: string | undefined;
  const user = (t: number): UserTurn => {
    users[t] ??= userTurn(run, conversation, key, s, t, uniqueBase + s);
    return users[t];
  };
  const replyTokens = (text: string) => (text === '' ? 0 : tokenizer.count(text));

  return {
    id,
    turns,
    thinkMs(t) {
      const delay = conversation?.turns[t]?.delayMs;
      if (delay !== undefined) return delay;
      return drawThink(sessions, run.thinkStreams.fork(key).fork(s).fork(t));
    },
    request(t, replies, index, warmup) {
      if (replies.length < t) throw new RangeError(`turn ${t + 1} needs ${t} replies, got ${replies.length}`);
      // A framed first turn is exact by construction; any other is counted through the template.
      const framed = t === 0 && frame !== undefined;
      const whole = counter !== undefined && !framed;
      let promptTokens = systemCount;
      const messages: ChatMessage[] = [];
      if (system !== '') messages.push({ role: 'system', content: system });
      for (let k = 0; k <= t; k++) {
        const u = user(k);
        messages.push({ role: 'user', content: u.text });
        promptTokens += u.tokens;
        if (k === t) break;
        const reply = replies[k]!;
        if (!whole) {
          replyCounts[k] ??= replyTokens(reply);
          promptTokens += replyCounts[k]!;
        }
        messages.push({ role: 'assistant', content: reply });
      }
      affinityId ??= conversationAffinityId(root.key, id);
      const item: WorkItem = {
        index,
        id: `r-${String(index + 1).padStart(6, '0')}`,
        warmup,
        promptTokens,
        maxTokens: user(t).maxTokens,
        sessionId: id,
        turn: t + 1,
        affinityId,
      };
      if (spec.api === 'chat' || spec.api === 'responses') item.messages = messages;
      else item.prompt = messages.map((m) => m.content).join('');
      if (whole) item.promptTokens = counter.count(item, t > 0);
      else if (framed && counter && item.messages) counter.known(item.messages, item.promptTokens);
      return item;
    },
  };
}

/** Builds session scripts; see the module comment. */
export function createSessionSource(input: SessionSourceInput): SessionSource {
  checkSessionSpec(input.sessions);
  if (input.spec.kind === 'dataset') checkDatasetConversations(input.entries);
  const { root, frame } = input;
  const run: SessionRun = {
    input,
    turnStreams: root.fork('session-turns'),
    lengthStreams: root.fork('session-length'),
    promptStreams: root.fork('session-prompt'),
    thinkStreams: root.fork('session-think'),
    pool: frame ? { pool: frame.pool } : {},
    counting: createTurnCounting(input.tokenizer, input.note),
  };
  const arrivals = input.arrivals;
  return {
    session: (s) => sessionScript(run, sessionId(s), 'run', s, 0),
    warmup: (w) => sessionScript(run, sessionId(w, 'w'), 'warmup', w, 1 << 30),
    ...(arrivals ? { startMs: (s: number) => arrivals.offsetAt(s) } : {}),
  };
}
