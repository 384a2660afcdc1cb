import { describe, expect, it } from 'vitest';
import type { TrafficClassSpec } from '../types.js';
import { applyClassParams } from './class-params.js';
import { embeddedConfiguration } from './embedded.js';
import { runFlagsArgv } from './plan.js';

const classes: TrafficClassSpec[] = [
  { name: 'chat', share: 0.6, promptTokens: 128, slo: { ttftMs: 400 }, priority: 0 },
  { name: 'batch', share: 0.3, promptTokens: 3000, priority: 1 },
  { name: 'eval', share: 0.1, maxTokens: 16 },
];

describe('class.NAME.KEY parameters of a configuration', () => {
  it("sets a class's field in --class's words, leaving the others and the input alone", () => {
    const out = applyClassParams(
      classes,
      {
        'class.batch.priority': 0,
        'class.chat.slo-tpot': '50',
        'class.eval.prompt-tokens-dist': 'uniform:min=10,max=20',
        'max-num-seqs': 8,
      },
      'configuration c',
    )!;
    expect(out[1]).toEqual({ name: 'batch', share: 0.3, promptTokens: 3000, priority: 0 });
    expect(out[0]!.slo).toEqual({ ttftMs: 400, tpotMs: 50 });
    expect(out[2]!.promptTokensDist).toBeDefined();
    expect(classes[1]!.priority).toBe(1);
    // A length's other form is dropped: prompt-tokens-dist replaces prompt-tokens.
    const dist = applyClassParams(
      classes,
      { 'class.chat.prompt-tokens-dist': 'uniform:min=64,max=256' },
      'c',
    )!;
    expect(dist[0]!.promptTokens).toBeUndefined();
    expect(applyClassParams(classes, { 'max-num-seqs': 8 }, 'c')).toEqual(classes);
    expect(applyClassParams(undefined, {}, 'c')).toBeUndefined();
  });

  it('rescales the shares not set to fill what is left of 1', () => {
    const out = applyClassParams(classes, { 'class.chat.share': 0.2 }, 'c')!;
    expect(out.map((c) => c.share)).toEqual([0.2, 0.6, 0.2]);
    const all = applyClassParams(
      classes,
      { 'class.chat.share': 0.5, 'class.batch.share': 0.25, 'class.eval.share': 0.25 },
      'c',
    )!;
    expect(all.map((c) => c.share)).toEqual([0.5, 0.25, 0.25]);
  });

  it('refuses, naming the parameter: an unknown class, a key --class does not take, a bad value, shares that cannot add up', () => {
    expect(() => applyClassParams(classes, { 'class.video.priority': 1 }, 'configuration x')).toThrow(
      /configuration x\.params\.class\.video\.priority: no class 'video' in the run \(chat, batch, eval\)/,
    );
    expect(() => applyClassParams(undefined, { 'class.chat.priority': 1 }, 'c')).toThrow(
      /no traffic classes/,
    );
    expect(() => applyClassParams(classes, { 'class.chat.colour': 1 }, 'c')).toThrow(
      /'colour' is not a field/,
    );
    expect(() => applyClassParams(classes, { 'class.chat.name': 'x' }, 'c')).toThrow(/'name' is not a field/);
    expect(() => applyClassParams(classes, { 'class.chat.priority': 'high' }, 'c')).toThrow(/whole number/);
    expect(() => applyClassParams(classes, { 'class.chat.share': 1 }, 'c')).toThrow(
      /leave nothing for batch, eval/,
    );
    expect(() =>
      applyClassParams(
        classes,
        { 'class.chat.share': 0.5, 'class.batch.share': 0.2, 'class.eval.share': 0.2 },
        'c',
      ),
    ).toThrow(/add up to 0\.9/);
  });

  it('the embedded engine takes scheduling-policy and max-loras, and leaves class parameters to the load', () => {
    const c = embeddedConfiguration('p', {
      'scheduling-policy': 'priority',
      'max-loras': 2,
      'class.batch.priority': 0,
    });
    expect(c.target).toMatchObject({
      engine: { schedulingPolicy: 'priority', maxLoras: 2 },
      engineArgs: ['--scheduling-policy', 'priority', '--max-loras', '2'],
    });
    expect(() => embeddedConfiguration('p', { 'scheduling-policy': 'lifo' })).toThrow(
      /scheduling-policy: expected one of fcfs, priority/,
    );
  });

  it("a plan's run: classes are --class flags", () => {
    expect(runFlagsArgv({ rate: 4, classes: ['name=a,share=0.5', 'name=b,share=0.5'] })).toEqual([
      '--rate',
      '4',
      '--class',
      'name=a,share=0.5',
      '--class',
      'name=b,share=0.5',
    ]);
  });
});
