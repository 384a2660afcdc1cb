/**
 * One target preparation for every kind of run (run, gate, sweep, doctor's progressive
 * stage, virtual time, each watch target): the URL or the embedded engine, the model (one
 * way: --model, else the first id of GET /v1/models), and the TargetInfo a RunMeta carries.
 *
 * @module
 */

import { listModels } from '../client/index.js';
import { redactUrl } from '../config/index.js';
import { GoodputError } from '../errors.js';
// Types only: the simulator loads on demand below, so a --url run loads none of it (issue 30).
import type { EmbeddedSim, EngineOptions, ReasoningMode, SimProfile } from '../sim/index.js';
import type { ApiKind, TargetInfo } from '../types.js';
import { closestIds, makeRedactor } from '../util/index.js';

export interface TargetOptions {
  /** Base URL; undefined → the embedded engine. */
  url?: string;
  /** Model id; undefined → the first id of GET /v1/models (the profile's model in virtual time). */
  model?: string;
  api: ApiKind;
  /** In memory only: used to list the models, never kept in the result. */
  apiKey?: string;
  /** Seed of the embedded engine. */
  seed: number;
  /** Embedded engine: its profile and time mode. */
  sim?: {
    profile?: string;
    /** A resolved profile (e.g. calibrated); wins over `profile`. */
    resolvedProfile?: SimProfile;
    timeMode?: 'live' | 'virtual';
    reasoning?: ReasoningMode;
    /** Share of tool-offering requests answered with a tool call (`--tool-call-fraction`). */
    toolCallFraction?: number;
    /** vLLM's --speculative-config JSON (speculative decoding). */
    speculativeConfig?: string;
    /** Engine flags (max-num-seqs, max-num-batched-tokens, …); speculativeConfig above wins. */
    engine?: EngineOptions;
  };
  /** Where the notes go (embedded engine started). */
  note?: (text: string) => void;
  /** Hint of the error when the model cannot be listed (watch: start while the target is down). */
  modelHint?: string;
  /** Stops the model listing (Ctrl-C). */
  signal?: AbortSignal;
  /** Extra headers of the model listing (--header); in memory only. */
  headers?: Record<string, string>;
  /** Header values that are credentials: redacted like the key. In memory only. */
  secrets?: string[];
}

export interface PreparedTarget {
  /**
   * Where requests go: the URL, or the embedded engine's. May carry what the user put in the
   * URL: never persist it, persist `info.baseUrl` (redacted).
   */
  baseUrl: string;
  model: string;
  /** What the RunMeta records about the target. */
  info: TargetInfo;
  /** Virtual time: the engine profile the run simulates in-process (no server, no socket). */
  virtualProfile?: SimProfile;
  /** Stops the embedded engine, if one was started. */
  close(): Promise<void>;
}

/** The first model the server lists; E_NO_MODEL with the hint when there is none or listing fails. */
export async function pickModel(
  baseUrl: string,
  apiKey: string | undefined,
  opts: { hint?: string; signal?: AbortSignal; headers?: Record<string, string>; secrets?: string[] } = {},
): Promise<string> {
  const { hint, signal } = opts;
  let models: string[];
  try {
    // Bounded in bytes and time (listModels' defaults) and stopped by Ctrl-C.
    models = await listModels(baseUrl, apiKey, {
      headers: opts.headers,
      secrets: opts.secrets,
      ...(signal ? { signal } : {}),
    });
  } catch (e) {
    if (!hint || !(e instanceof GoodputError) || signal?.aborted) throw e;
    throw new GoodputError(
      'E_NO_MODEL',
      `cannot list the models at ${redactUrl(baseUrl)} (${e.message})`,
      hint,
    );
  }
  const first = models[0];
  if (first === undefined) {
    throw new GoodputError(
      'E_NO_MODEL',
      `GET ${redactUrl(baseUrl)}/v1/models returned no model`,
      hint ?? 'pass --model with the id the server serves',
    );
  }
  // The id is a server string that would be stored and printed everywhere: a server that
  // echoes the key (or a secret header) there must not get it into the results.
  if (makeRedactor([apiKey, ...(opts.secrets ?? [])])(first) !== first) {
    throw new GoodputError(
      'E_NO_MODEL',
      `the first model id from GET ${redactUrl(baseUrl)}/v1/models contains (part of) the API key or a secret header; it is not used`,
      'pass --model with the id the server serves, and check the server or gateway that echoes the key',
    );
  }
  return first;
}

/** How long `checkServedModel` waits for the model list before it lets the run go on unchecked. */
export const MODEL_CHECK_BUDGET_MS = 2_000;

/**
 * `--model X` checked against GET /v1/models (doctor's models step, for every run): a server
 * that lists models and not X is refused as a usage error naming the ids it serves, so that
 * results are never labelled with a model the server did not run. A server whose list is empty,
 * absent (404, a gateway) or slow to come (bounded by MODEL_CHECK_BUDGET_MS) is not refused:
 * the answer is a note saying the model was not checked. Never throws for the listing itself.
 */
export async function checkServedModel(
  target: Pick<PreparedTarget, 'baseUrl' | 'model'>,
  opts: Pick<TargetOptions, 'apiKey' | 'signal' | 'headers' | 'secrets'>,
): Promise<{ note?: string }> {
  let ids: string[];
  try {
    ids = await listModels(target.baseUrl, opts.apiKey, {
      timeoutMs: MODEL_CHECK_BUDGET_MS,
      headers: opts.headers,
      secrets: opts.secrets,
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
  } catch (e) {
    if (opts.signal?.aborted) return {};
    const why = e instanceof GoodputError ? e.message : String(e);
    return { note: `--model ${target.model} not checked against the server's model list (${why})` };
  }
  if (ids.length === 0) {
    return { note: `the server lists no models: --model ${target.model} not checked` };
  }
  if (ids.includes(target.model)) return {};
  const redact = makeRedactor([opts.apiKey, ...(opts.secrets ?? [])]);
  const served = ids.map(redact);
  const close = closestIds(target.model, served);
  const caseOnly = close.find((id) => id.toLowerCase() === target.model.toLowerCase());
  const shown = `${served.slice(0, 5).join(', ')}${served.length > 5 ? `, … (${served.length} in all)` : ''}`;
  throw new GoodputError(
    'E_USAGE',
    caseOnly
      ? `model '${target.model}' is not served by ${redactUrl(target.baseUrl)}; '${caseOnly}' is (model ids are case-sensitive)`
      : `model '${target.model}' is not served by ${redactUrl(target.baseUrl)}, which serves: ${shown}`,
    `use --model ${close[0] ?? served[0]}${close.length > 1 ? ` (or: ${close.slice(1).join(', ')})` : ''}, or leave --model out to take the first id the server lists`,
  );
}

/** The embedded engine's speculative decoding, priority scheduling and LoRA slots, as the RunMeta records them. */
function specOf(
  opts: TargetOptions,
): Pick<TargetInfo, 'simSpeculativeConfig' | 'simSchedulingPolicy' | 'simMaxLoras'> {
  const spec = opts.sim?.speculativeConfig;
  const engine = opts.sim?.engine;
  return {
    ...(spec === undefined ? {} : { simSpeculativeConfig: spec }),
    ...(engine?.schedulingPolicy === 'priority' ? { simSchedulingPolicy: 'priority' as const } : {}),
    // The adapter slots, when it serves adapters (1, vLLM's default, unless given).
    ...(engine?.loraModules?.length ? { simMaxLoras: engine.maxLoras ?? 1 } : {}),
  };
}

/** The embedded engine's flags: `sim.engine` with `sim.speculativeConfig` over it (undefined when neither is set). */
export function embeddedEngineOptions(sim: TargetOptions['sim']): EngineOptions | undefined {
  if (sim?.engine === undefined && sim?.speculativeConfig === undefined) return undefined;
  return {
    ...sim.engine,
    ...(sim.speculativeConfig !== undefined ? { speculativeConfig: sim.speculativeConfig } : {}),
  };
}

/** Prepares the target of one run; see the module comment. Call `close()` when the run ends. */
export async function prepareTarget(opts: TargetOptions): Promise<PreparedTarget> {
  if (opts.sim?.timeMode === 'virtual') {
    if (opts.url !== undefined) {
      throw new GoodputError(
        'E_USAGE',
        'a virtual-time run needs the embedded engine',
        'drop --url with --time virtual',
      );
    }
    const profile =
      opts.sim.resolvedProfile ?? (await import('../sim/index.js')).resolveProfile(opts.sim.profile);
    return {
      baseUrl: 'virtual://embedded',
      model: opts.model ?? profile.model.servedName,
      info: {
        baseUrl: 'virtual://embedded',
        api: opts.api,
        embedded: true,
        timeMode: 'virtual',
        simProfile: profile.id,
        ...specOf(opts),
      },
      virtualProfile: profile,
      close: async () => undefined,
    };
  }
  let sim: EmbeddedSim | undefined;
  if (opts.url === undefined) {
    const engine = embeddedEngineOptions(opts.sim);
    const { startEmbeddedSim } = await import('../sim/index.js');
    sim = await startEmbeddedSim({
      host: '127.0.0.1',
      port: 0,
      seed: opts.seed,
      profile: opts.sim?.resolvedProfile ?? opts.sim?.profile,
      ...(opts.sim?.reasoning ? { reasoning: opts.sim.reasoning } : {}),
      ...(opts.sim?.toolCallFraction !== undefined ? { toolCallFraction: opts.sim.toolCallFraction } : {}),
      ...(engine !== undefined ? { engine } : {}),
    });
    opts.note?.(
      `embedded engine: ${sim.url} (${sim.profileId}${sim.isolated ? ', own thread' : ''}), model ${sim.model}`,
    );
  }
  try {
    const baseUrl = opts.url ?? sim!.url;
    const model =
      opts.model ??
      (await pickModel(baseUrl, opts.apiKey, {
        hint: opts.modelHint,
        signal: opts.signal,
        headers: opts.headers,
        secrets: opts.secrets,
      }));
    const info: TargetInfo = { baseUrl: redactUrl(baseUrl), api: opts.api, embedded: sim !== undefined };
    if (sim) {
      info.timeMode = 'live';
      info.simProfile = sim.profileId;
      Object.assign(info, specOf(opts));
    }
    return { baseUrl, model, info, close: async () => sim?.close() };
  } catch (e) {
    await sim?.close().catch(() => undefined);
    throw e;
  }
}
