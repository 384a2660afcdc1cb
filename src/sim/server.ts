/**
 * The simulator's HTTP server (node:http): vLLM's OpenAI-compatible endpoints over a live
 * engine, `/health`, `/metrics`, an optional API key, failure injection, and runtime controls
 * for tests (`setFailures`, `setSlowdown`).
 *
 * @module
 */

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { GoodputError } from '../errors.js';
import type { ApiKind } from '../types.js';
import { toolVersion } from '../util/index.js';
import { embed } from './embeddings.js';
import { type EngineConfig, type EngineOptions, resolveEngineConfig } from './engine-config.js';
import { type FailureConfig, FailureInjector } from './failures.js';
import { type GenerateContext, generate } from './generate.js';
import { BodyTooLarge, hasKey, readBody, sendError, sendJson } from './http.js';
import { LiveDriver } from './live.js';
import { createSimMetrics } from './metrics.js';
import { resolveProfile, type SimProfile } from './profiles.js';
import type { ReasoningMode } from './reasoning.js';
import { Engine } from './scheduler.js';
import { openAiError } from './sse.js';
import { loadTokenizer } from './text.js';

export interface SimOptions {
  /** `gpu[xN]:model` (default h100:llama-3.1-8b) or a resolved profile (e.g. from a JSON file). */
  profile?: string | SimProfile;
  /** Served model id (default: the profile model's Hugging Face id, as vLLM serves it). */
  model?: string;
  host?: string;
  /** 0 (default) picks a free port. */
  port?: number;
  /** Seed of output lengths, output text and injected failures (default 0). */
  seed?: number;
  /** When set, /v1/* requires `Authorization: Bearer <apiKey>` (401 otherwise). */
  apiKey?: string;
  engine?: EngineOptions;
  failures?: FailureConfig;
  /** Step-time multiplier (default 1; 0.1 runs ten times faster than the roofline). */
  slowdown?: number;
  /** Mean output length when ignore_eos is off (default 200). */
  meanOutputTokens?: number;
  /** Largest request body accepted; larger ones get 413 (default 64 MiB). */
  maxBodyBytes?: number;
  /**
   * Reasoning mode: chat and Responses requests stream this many reasoning tokens (in the given
   * delta field) before the answer. See reasoning.ts.
   */
  reasoning?: ReasoningMode;
  /** Share of requests offering tools (tool_choice auto) answered with a tool call (default 0.5; tools.ts). */
  toolCallFraction?: number;
}

/** Engine options whose LoRA adapters leave out the base model's name (a class naming it runs on the base model). */
export function withoutBaseAdapter(
  engine: EngineOptions | undefined,
  model: string,
): EngineOptions | undefined {
  if (!engine?.loraModules?.includes(model)) return engine;
  return { ...engine, loraModules: engine.loraModules.filter((a) => a !== model) };
}

/**
 * GET /v1/models as vLLM answers it: the base model (`parent: null`), then each LoRA adapter
 * with `parent` naming the base model (its `root` is the adapter's path in vLLM; here its name).
 */
function modelList(model: string, config: EngineConfig, created: number) {
  const card = (id: string, parent: string | null) => ({
    id,
    object: 'model',
    created,
    owned_by: 'goodput-sim',
    root: id,
    parent,
    max_model_len: config.maxModelLen,
  });
  return { object: 'list', data: [card(model, null), ...config.loraModules.map((a) => card(a, model))] };
}

/** vLLM's 404 for a model it does not serve (its error shape: type NotFoundError, param model, code 404). */
function modelNotFound(res: ServerResponse, name: unknown): void {
  sendJson(
    res,
    404,
    openAiError(`The model \`${String(name)}\` does not exist.`, 'NotFoundError', 404, 'model'),
  );
}

/** The endpoints served, by path. */
const API_BY_PATH: ReadonlyMap<string, ApiKind> = new Map([
  ['/v1/chat/completions', 'chat'],
  ['/v1/completions', 'completions'],
  ['/v1/responses', 'responses'],
  ['/v1/embeddings', 'embeddings'],
]);

export interface SimServer {
  /** Base URL, e.g. http://127.0.0.1:41234 (no /v1). */
  url: string;
  port: number;
  model: string;
  profile: SimProfile;
  config: EngineConfig;
  engine: Engine;
  registry: Registry;
  /** Replace the failure rates for the requests that follow. */
  setFailures(failures: FailureConfig): void;
  /** Multiply step times from now on (1 = the roofline). */
  setSlowdown(factor: number): void;
  close(): Promise<void>;
}

/** What the request handler of one server works with. */
interface Served {
  opts: SimOptions;
  engine: Engine;
  config: EngineConfig;
  registry: Registry;
  model: string;
  adapters: ReadonlySet<string>;
  failures: FailureInjector;
  gen: GenerateContext;
  /** Unix seconds of the start, /v1/models' `created`. */
  created: number;
}

/** The server's request handler: its endpoints, the key check, injected failures, then generation. */
function requestHandler(served: Served): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const { opts, engine, config, registry, model, adapters, failures, gen, created } = served;
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? '/').split('?')[0]!;
    const method = req.method ?? 'GET';
    if (path === '/health' && (method === 'GET' || method === 'HEAD')) return void res.writeHead(200).end();
    if (path === '/metrics' && method === 'GET') {
      const text = await registry.metrics();
      res.writeHead(200, { 'content-type': registry.contentType });
      return void res.end(text);
    }
    // vLLM's cache hygiene between benchmark runs (`goodput experiment` calls it), and its version.
    if (path === '/reset_prefix_cache' && method === 'POST') {
      const dropped = engine.kv.resetPrefixCache();
      return sendJson(res, 200, { reset: true, dropped_blocks: dropped });
    }
    if (path === '/version' && method === 'GET') return sendJson(res, 200, { version: toolVersion() });
    if (path.startsWith('/v1/') && opts.apiKey !== undefined && !hasKey(req, opts.apiKey))
      return sendError(res, 401, 'Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key');
    if (path === '/v1/models' && method === 'GET')
      return sendJson(res, 200, modelList(model, config, created));
    const api = API_BY_PATH.get(path);
    if (!api || method !== 'POST')
      return sendError(res, 404, `Not Found: ${method} ${path}`, 'NotFoundError', 404);
    const body = await readJsonBody(req, res, opts.maxBodyBytes);
    if (!body) return;
    if (body.model !== undefined && body.model !== model && !adapters.has(body.model as string))
      return modelNotFound(res, body.model);
    const plan = failures.next();
    if (plan.http !== undefined) return answerInjected(res, plan.http, failures, body.model ?? model);
    if (api === 'embeddings') embed(gen, body, req, res);
    else generate(gen, api, body, plan, req, res);
  };
}

/** The body as a JSON object; undefined when it is not one (answered 400) or too large (413). */
async function readJsonBody(
  req: IncomingMessage,
  res: ServerResponse,
  maxBytes: number | undefined,
): Promise<Record<string, unknown> | undefined> {
  try {
    const parsed: unknown = JSON.parse(await readBody(req, maxBytes));
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
      throw new Error('body is not a JSON object');
    return parsed as Record<string, unknown>;
  } catch (e) {
    if (e instanceof BodyTooLarge)
      sendError(
        res,
        413,
        `${e.message}: send a shorter prompt`,
        'invalid_request_error',
        'request_too_large',
        {
          connection: 'close',
        },
      );
    else sendError(res, 400, `invalid JSON body: ${(e as Error).message}`, 'BadRequestError', 400);
    return undefined;
  }
}

/** An injected HTTP failure, answered as the server it stands for would. */
function answerInjected(
  res: ServerResponse,
  status: number,
  failures: FailureInjector,
  asked: unknown,
): void {
  const retry = { 'retry-after': String(failures.current.retryAfterS ?? 1) };
  if (status === 429)
    sendError(res, 429, 'Rate limit reached (simulated).', 'rate_limit_error', 'rate_limit_exceeded', retry);
  else if (status === 503)
    sendError(res, 503, 'Service unavailable (simulated).', 'ServiceUnavailableError', 503, retry);
  else if (status === 404) modelNotFound(res, asked);
  else sendError(res, 500, 'Internal server error (simulated).', 'InternalServerError', 500);
}

/**
 * Start the simulated engine on 127.0.0.1 (port 0 by default).
 *
 * @example
 * const sim = await startSim({ seed: 1 });
 * const res = await fetch(`${sim.url}/v1/models`);
 * await sim.close();
 */
export async function startSim(opts: SimOptions = {}): Promise<SimServer> {
  loadTokenizer(); // before the first request, not inside its latency
  const profile = typeof opts.profile === 'object' ? opts.profile : resolveProfile(opts.profile);
  const model = opts.model ?? profile.model.servedName;
  const config = resolveEngineConfig(profile, withoutBaseAdapter(opts.engine, model));
  const seed = opts.seed ?? 0;
  const engine = new Engine(profile, config, seed);
  engine.slowdown = opts.slowdown ?? 1;
  const driver = new LiveDriver(engine);
  const failures = new FailureInjector(opts.failures, seed);
  const registry = createSimMetrics(engine, model);
  const adapters = new Set(config.loraModules);
  let counter = 0;
  const gen: GenerateContext = {
    driver,
    model,
    adapters,
    seed,
    meanOutputTokens: opts.meanOutputTokens ?? 200,
    nextId: () => ++counter,
  };
  if (opts.reasoning) gen.reasoning = opts.reasoning;
  if (opts.toolCallFraction !== undefined) gen.toolCallFraction = opts.toolCallFraction;
  const created = Math.floor(Date.now() / 1000);

  const handle = requestHandler({ opts, engine, config, registry, model, adapters, failures, gen, created });

  // Node's default keep-alive timeout (5 s) is vLLM's too (TIMEOUT_KEEP_ALIVE = 5): idle
  // connections are closed between requests as a real server does; the client resends once.
  const server = createServer({ noDelay: true }, (req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (!res.headersSent)
        sendError(res, 500, `simulator error: ${(e as Error).message}`, 'InternalServerError', 500);
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) =>
      reject(
        new GoodputError(
          'E_SIM',
          `cannot listen on ${opts.host ?? '127.0.0.1'}:${opts.port ?? 0}: ${e.code ?? e.message}`,
          'pick another --port, or stop what uses it',
          { cause: e },
        ),
      ),
    );
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', resolve);
  });
  const port = (server.address() as AddressInfo).port;
  const host = opts.host ?? '127.0.0.1';
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    model,
    profile,
    config,
    engine,
    registry,
    setFailures: (f) => failures.set(f),
    setSlowdown: (factor) => {
      if (!(factor > 0))
        throw new GoodputError('E_SIM', `slowdown ${factor} must be > 0`, 'use e.g. 2 for twice slower');
      engine.slowdown = factor;
    },
    close: () =>
      new Promise<void>((resolve) => {
        driver.close();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
