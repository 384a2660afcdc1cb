import { afterAll, describe, expect, it } from 'vitest';
import { resolveEngineConfig } from './engine-config.js';
import { createLoraCost, LoraSlots, loraParams, parseLoraModules } from './lora.js';
import { resolveProfile } from './profiles.js';
import type { EngineRequest, RequestSink } from './request.js';
import { Engine } from './scheduler.js';
import { type SimServer, startSim } from './server.js';

const profile = resolveProfile('h100:llama-3.1-8b');
const noop: RequestSink = { onToken() {}, onFinish() {} };

function engine(opts: Parameters<typeof resolveEngineConfig>[1]): Engine {
  return new Engine(profile, resolveEngineConfig(profile, { enablePrefixCaching: false, ...opts }));
}

function add(e: Engine, id: string, lora: string | undefined, outputTokens = 4): EngineRequest {
  return e.add(
    { id, promptTokens: 32, outputTokens, finishReason: 'length', sink: noop, ...(lora ? { lora } : {}) },
    0,
  );
}

describe('LoRA adapters: slots in the scheduler (vLLM V1: max_loras distinct adapters in a batch)', () => {
  it('skips a request whose adapter finds no slot, lets the ones behind it go, and admits it once a slot frees', () => {
    const e = engine({ loraModules: ['sql', 'chat'], maxLoras: 1 });
    const sqlLong = add(e, 's1', 'sql', 20);
    const chat = add(e, 'c1', 'chat');
    const base = add(e, 'b1', undefined);
    const sqlShort = add(e, 's2', 'sql');
    let t = 0;
    let plan = e.plan(t)!;
    // The chat request is skipped; the base-model one and the second sql one behind it are admitted.
    expect(plan.entries.map((x) => x.req.id)).toEqual(['s1', 'b1', 's2']);
    expect(chat.status).toBe('waiting');
    expect(e.loraUsage()).toEqual({ running: ['sql'], waiting: ['chat'] });
    let admittedAt: number | undefined;
    while (plan) {
      t += plan.durationMs;
      e.commit(plan, t);
      plan = e.plan(t)!;
      if (admittedAt === undefined && chat.status === 'running') admittedAt = t;
    }
    // It ran only once no sql request was running.
    expect(admittedAt).toBeGreaterThanOrEqual(sqlLong.finishedMs!);
    expect(sqlShort.finishedMs!).toBeLessThan(sqlLong.finishedMs!);
    expect(base.finishedAs).toBe('length');
    expect(chat.finishedAs).toBe('length');
    expect(e.loraUsage()).toEqual({ running: [], waiting: [] });
  });

  it('runs both adapters at once with two slots', () => {
    const e = engine({ loraModules: ['sql', 'chat'], maxLoras: 2 });
    add(e, 's1', 'sql');
    add(e, 'c1', 'chat');
    expect(e.plan(0)!.entries).toHaveLength(2);
    expect(e.loraUsage().running.sort()).toEqual(['chat', 'sql']);
  });

  it('charges the adapters of a step, and a load only when an adapter enters a slot', () => {
    const withAdapters = engine({ loraModules: ['sql', 'chat'], maxLoras: 1 });
    const plain = engine({});
    add(withAdapters, 's1', 'sql', 3);
    add(plain, 'p1', undefined, 3);
    const first = withAdapters.plan(0)!;
    const ref = plain.plan(0)!;
    expect(first.cost.loraMs).toBeGreaterThan(0);
    expect(first.durationMs).toBeCloseTo(ref.durationMs + first.cost.loraMs!, 9);
    withAdapters.commit(first, first.durationMs);
    const second = withAdapters.plan(first.durationMs)!;
    // The same adapter stays resident: no load the second time, only its weights and tokens.
    expect(second.cost.loraMs!).toBeLessThan(first.cost.loraMs! / 2);
    expect(plain.plan(0)!.cost.loraMs).toBeUndefined();
  });

  it('slots: least recently used out, and a load counted per adapter entering', () => {
    const slots = new LoraSlots(2);
    expect(slots.use(new Set(['a', 'b']))).toBe(2);
    expect(slots.use(new Set(['a']))).toBe(0);
    expect(slots.use(new Set(['c']))).toBe(1); // b out (a was used last)
    expect(slots.use(new Set(['a']))).toBe(0);
    expect(slots.use(new Set(['b']))).toBe(1);
  });

  it('sizes an adapter from the model: rank 16 on Llama 3.1 8B is tens of MB, and cost grows with tokens', () => {
    const bytes = loraParams(profile.model, 16) * profile.model.dtypeBytes;
    expect(bytes).toBeGreaterThan(40e6);
    expect(bytes).toBeLessThan(200e6);
    expect(loraParams(profile.model, 32)).toBe(2 * loraParams(profile.model, 16));
    const cost = createLoraCost(profile, 16);
    expect(cost(0, 100, 0)).toBe(0);
    expect(cost(1, 8192, 0)).toBeGreaterThan(cost(1, 1, 0));
    expect(cost(1, 1, 1)).toBeGreaterThan(cost(1, 1, 0));
    expect(cost(2, 1, 0)).toBeGreaterThan(cost(1, 1, 0));
  });

  it('checks the flags as vLLM does at start-up, and reads --lora-modules as vLLM writes it', () => {
    expect(() => resolveEngineConfig(profile, { loraModules: ['a', 'a'] })).toThrow(/given twice/);
    expect(() => resolveEngineConfig(profile, { loraModules: ['a b'] })).toThrow(/not a model id/);
    expect(() => resolveEngineConfig(profile, { maxLoras: 0 })).toThrow(/max-loras 0/);
    expect(resolveEngineConfig(profile, {}).maxLoras).toBe(1);
    expect(parseLoraModules(['sql=/adapters/sql chat', 'x,y=/p'])).toEqual(['sql', 'chat', 'x', 'y']);
  });
});

describe('sim server: several models (LoRA adapters beside the base model)', () => {
  const servers: SimServer[] = [];
  afterAll(() => Promise.all(servers.map((s) => s.close())));

  it('lists the adapters with parent, routes by model, answers 404 in vLLM shape, and exposes lora_requests_info', async () => {
    const sim = await startSim({
      seed: 1,
      slowdown: 0.05,
      engine: { loraModules: ['sql-lora', 'chat-lora', 'meta-llama/Llama-3.1-8B-Instruct'], maxLoras: 2 },
    });
    servers.push(sim);
    const models = (await (await fetch(`${sim.url}/v1/models`)).json()) as {
      data: Array<{ id: string; parent: string | null; root: string }>;
    };
    // The base model's name given as an adapter is the base model.
    expect(models.data.map((m) => [m.id, m.parent])).toEqual([
      [sim.model, null],
      ['sql-lora', sim.model],
      ['chat-lora', sim.model],
    ]);
    const post = (model: string) =>
      fetch(`${sim.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 3 }),
        signal: AbortSignal.timeout(10_000),
      });
    const ok = await post('sql-lora');
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { model: string }).model).toBe('sql-lora');
    expect((await post(sim.model)).status).toBe(200);
    const missing = await post('other-lora');
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({
      error: {
        message: 'The model `other-lora` does not exist.',
        type: 'NotFoundError',
        param: 'model',
        code: 404,
      },
    });
    const metrics = await (await fetch(`${sim.url}/metrics`)).text();
    expect(metrics).toMatch(
      /vllm:lora_requests_info\{max_lora="2",waiting_lora_adapters="",running_lora_adapters=""\} \d+/,
    );
  });
});
