import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExitCode, type GoodputError } from '../errors.js';
import { kvCapacityBlocks, resolveEngineConfig } from './engine-config.js';
import {
  kvBytesPerToken,
  loadProfileFile,
  profileFromJson,
  profileToJson,
  resolveProfile,
} from './profiles.js';
import { attentionPairs, createRoofline } from './roofline.js';

describe('roofline step time', () => {
  const p = resolveProfile('h100:llama-3.1-8b');
  const r = createRoofline(p);

  it('matches the documented formula on a table of steps', () => {
    // Plain reference, written out from docs/simulator.md.
    const ref = (slices: { c: number; n: number }[]) => {
      let tokens = 0;
      let pairs = 0;
      let kv = 0;
      for (const s of slices) {
        tokens += s.n;
        for (let q = 1; q <= s.n; q++) pairs += s.c + q;
        kv += s.c;
      }
      const compute = (2 * 8.03e9 * tokens + 4 * 32 * 32 * 128 * pairs) / (989e12 * 0.6);
      const memory = (8.03e9 * 2 + (kv + tokens) * 131072) / (3.35e12 * 0.8);
      return Math.max(compute, memory) * 1e3 + 1.5 + (15 * slices.length) / 1e3;
    };
    const cases = [
      [{ c: 0, n: 1 }],
      [{ c: 0, n: 2048 }],
      [
        { c: 1000, n: 1 },
        { c: 3000, n: 1 },
      ],
      [{ c: 4096, n: 904 }, ...Array.from({ length: 64 }, () => ({ c: 2000, n: 1 }))],
      Array.from({ length: 256 }, () => ({ c: 500, n: 1 })),
    ];
    for (const slices of cases) {
      const got = r.cost(slices.map((s) => ({ contextTokens: s.c, newTokens: s.n }))).totalMs;
      expect(got).toBeCloseTo(ref(slices), 6);
    }
  });

  it('prefill is compute-bound and grows with prompt length; decode is bandwidth-bound and grows with batch size', () => {
    const prefill = (n: number) => r.cost([{ contextTokens: 0, newTokens: n }]);
    expect(prefill(4096).computeMs).toBeGreaterThan(prefill(4096).memoryMs);
    expect(prefill(4096).totalMs).toBeGreaterThan(3 * prefill(1024).totalMs);
    const decode = (b: number) =>
      r.cost(Array.from({ length: b }, () => ({ contextTokens: 2000, newTokens: 1 })));
    expect(decode(1).memoryMs).toBeGreaterThan(decode(1).computeMs);
    expect(decode(64).totalMs).toBeGreaterThan(1.5 * decode(1).totalMs);
  });

  it('adds all-reduce time with tensor parallelism', () => {
    const tp = createRoofline(resolveProfile('h100:llama-3.1-70b'));
    expect(tp.profile.tensorParallel).toBe(4);
    expect(tp.cost([{ contextTokens: 0, newTokens: 1 }]).commMs).toBeGreaterThan(0);
    expect(r.cost([{ contextTokens: 0, newTokens: 1 }]).commMs).toBe(0);
  });

  it('counts causal attention pairs', () => {
    for (const [c, n] of [
      [0, 1],
      [0, 10],
      [7, 3],
      [100, 1],
    ] as const) {
      let pairs = 0;
      for (let q = 1; q <= n; q++) pairs += c + q;
      expect(attentionPairs(c, n)).toBe(pairs);
    }
  });
});

describe('profiles and KV capacity', () => {
  it('parses gpu[xN]:model and rejects unknown names', () => {
    expect(resolveProfile('h200x2:llama-3.1-70b').tensorParallel).toBe(2);
    expect(resolveProfile('a100:qwen2.5-7b').model.kvHeads).toBe(4);
    expect(() => resolveProfile('tpu:llama-3.1-8b')).toThrow(/unknown GPU/);
    expect(() => resolveProfile('h100:gpt-9')).toThrow(/unknown model/);
    expect(() => resolveProfile('h100')).toThrow(/gpu:model/);
  });

  it('derives blocks from memory × utilisation − weights, per KV bytes per token', () => {
    const p = resolveProfile('h100:llama-3.1-8b');
    expect(kvBytesPerToken(p.model)).toBe(2 * 32 * 8 * 128 * 2);
    const hi = kvCapacityBlocks(p, 0.9, 16, 8192);
    const lo = kvCapacityBlocks(p, 0.5, 16, 8192);
    // 0.4 × 79.2 GiB more memory, all of it KV.
    expect(hi - lo).toBeCloseTo((0.4 * 79.2 * 1024 ** 3) / (131072 * 16), -1);
    expect(() => resolveEngineConfig(p, { gpuMemoryUtilization: 0.1 })).toThrow(/no GPU memory left/);
    const l4 = resolveProfile('l4:llama-3.1-70b');
    expect(() => resolveEngineConfig(l4, {})).toThrow(/no GPU memory left/);
  });

  it('reads a profile file; a folder, /dev/zero or bad JSON is a usage error naming the fix', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'goodput-profile-'));
    try {
      const file = join(dir, 'p.json');
      writeFileSync(file, JSON.stringify({ gpu: 'a100', model: 'llama-3.1-8b' }));
      expect((await loadProfileFile(file)).gpu.peakFlops).toBe(312e12);
      const refused = async (path: string) =>
        loadProfileFile(path).then(
          () => undefined,
          (e: GoodputError) => e,
        );
      for (const [path, cause] of [
        [dir, /cannot read --profile-file .*: EISDIR/],
        ['/dev/zero', /cannot read --profile-file \/dev\/zero: larger than 1048576 bytes/],
        [join(dir, 'none.json'), /cannot read --profile-file .*: ENOENT/],
      ] as const) {
        const e = await refused(path);
        expect(e?.exitCode, path).toBe(ExitCode.USAGE);
        expect(e?.message).toMatch(cause);
        expect(e?.hint).toContain('--profile-file a JSON file');
      }
      writeFileSync(file, '{ not json');
      expect((await refused(file))?.message).toMatch(/is not valid JSON/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('accepts a user profile as JSON, by built-in names or full objects', () => {
    const p = profileFromJson({
      gpu: 'a100',
      model: { params: 1e9, layers: 16, hidden: 2048, heads: 16, kvHeads: 4, headDim: 128 },
    });
    expect(p.gpu.peakFlops).toBe(312e12);
    expect(p.model.params).toBe(1e9);
    expect(() => profileFromJson({ gpu: 'a100', model: { params: 1e9 } })).toThrow(/model.layers/);
    expect(() => profileFromJson({ gpu: { peakFlops: 1 }, model: 'llama-3.1-8b' })).toThrow(
      /gpu.memBandwidth/,
    );
  });

  it('takes measured rates (stepTime) in place of the datasheet ones, and writes them back', () => {
    const base = resolveProfile('a100:llama-3.1-8b');
    const fitted = profileFromJson({
      ...profileToJson(base),
      stepTime: { flopsPerS: 2 * 312e12 * 0.6, bytesPerS: 4 * 2.039e12 * 0.8 },
    });
    const slices = (n: number, seqs: number) =>
      Array.from({ length: seqs }, () => ({ contextTokens: n === 1 ? 500 : 0, newTokens: n }));
    const a = createRoofline(base);
    const b = createRoofline(fitted);
    // Prefill (compute-bound) twice as fast, decode (bandwidth-bound) four times.
    expect(b.cost(slices(4096, 1)).computeMs).toBeCloseTo(a.cost(slices(4096, 1)).computeMs / 2, 9);
    expect(b.cost(slices(1, 8)).memoryMs).toBeCloseTo(a.cost(slices(1, 8)).memoryMs / 4, 9);
    const again = profileFromJson(JSON.parse(JSON.stringify(profileToJson(fitted))));
    expect(again).toEqual(fitted);
    expect(profileToJson(base).gpu).toBe('a100');
    for (const [stepTime, why] of [
      [{ flopsPerS: 0, bytesPerS: 1 }, /stepTime.flopsPerS must be a positive number/],
      [{ flopsPerS: 1 }, /stepTime.bytesPerS must be a positive number/],
      [{ flopsPerS: 1, bytesPerS: 1, speed: 2 }, /stepTime.speed is not a field/],
      [[1, 2], /stepTime must be an object/],
    ] as const)
      expect(() => profileFromJson({ gpu: 'a100', model: 'llama-3.1-8b', stepTime }), String(why)).toThrow(
        why,
      );
    expect(() => profileFromJson({ gpu: 'a100', model: 'llama-3.1-8b', stepOverheadMs: -1 })).toThrow(
      /stepOverheadMs must be a number ≥ 0/,
    );
  });
});
