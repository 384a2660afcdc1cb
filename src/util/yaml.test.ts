import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { YAML_BOMB } from '../../test/helpers/yaml-bomb.js';
import { parseYamlBounded, readTextFileBounded, YAML_MAX_BYTES } from './yaml.js';

const dir = mkdtempSync(join(tmpdir(), 'goodput-yaml-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('parseYamlBounded', () => {
  it('parses every document of a plain file', () => {
    expect(parseYamlBounded('a: 1\n---\nb: [x, y]\n')).toEqual({
      ok: true,
      documents: [{ a: 1 }, { b: ['x', 'y'] }],
    });
    expect(parseYamlBounded('x: &v 3\ny: *v\n')).toEqual({ ok: true, documents: [{ x: 3, y: 3 }] });
  });

  it('refuses a YAML bomb quickly, without expanding it', () => {
    const t0 = performance.now();
    const r = parseYamlBounded(YAML_BOMB);
    expect(performance.now() - t0).toBeLessThan(2000);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.kind).toBe('aliases');
      expect(r.problem).toMatch(/YAML bomb/);
    }
  });

  it('refuses text over the byte limit and reports syntax errors', () => {
    const big = parseYamlBounded(`a: "${'x'.repeat(YAML_MAX_BYTES)}"`);
    expect(big.ok ? undefined : big.kind).toBe('too-large');
    const broken = parseYamlBounded('a: [\n');
    expect(broken.ok ? undefined : broken.kind).toBe('syntax');
  });
});

describe('readTextFileBounded', () => {
  it('reads a small file, refuses a large one and an endless device', async () => {
    const small = join(dir, 'small.yaml');
    writeFileSync(small, 'a: 1\n');
    expect(await readTextFileBounded(small)).toEqual({ ok: true, text: 'a: 1\n' });
    const large = join(dir, 'large.yaml');
    writeFileSync(large, 'x'.repeat(YAML_MAX_BYTES + 10));
    expect(await readTextFileBounded(large)).toEqual({
      ok: false,
      problem: `larger than ${YAML_MAX_BYTES} bytes`,
    });
    expect((await readTextFileBounded('/dev/zero')).ok).toBe(false);
    expect(await readTextFileBounded(join(dir, 'missing.yaml'))).toEqual({ ok: false, problem: 'ENOENT' });
  });
});
