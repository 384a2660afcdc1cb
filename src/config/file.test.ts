import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { GoodputError } from '../errors.js';
import { detectShape, loadConfigFile, parseConfig } from './file.js';

const SECRET = 'key-file-secret-abcdef123456';

function configError(fn: () => unknown): GoodputError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(GoodputError);
    expect((e as GoodputError).code).toBe('E_CONFIG');
    return e as GoodputError;
  }
  throw new Error('expected E_CONFIG');
}

describe('parseConfig: settings.json shape', () => {
  test('normalises every field', () => {
    expect(
      parseConfig(
        {
          base_url: 'http://localhost:8000',
          api_key: ` ${SECRET}\n`,
          model_id: 'llama',
          slo: { ttft_ms: 500, tpot_ms: 50, e2el_ms: 5000 },
        },
        'settings.json',
      ),
    ).toEqual({
      path: 'settings.json',
      shape: 'settings',
      baseUrl: 'http://localhost:8000',
      apiKey: SECRET,
      apiKeyRaw: ` ${SECRET}\n`,
      model: 'llama',
      slo: { ttftMs: 500, tpotMs: 50, e2elMs: 5000 },
    });
  });

  test('every field is optional; a partial slo keeps only what is set', () => {
    expect(parseConfig({}, 's.json')).toEqual({ path: 's.json', shape: 'settings' });
    expect(parseConfig({ slo: { tpot_ms: 80 } }, 's.json').slo).toEqual({ tpotMs: 80 });
  });
});

describe('parseConfig: gateway shape', () => {
  test('normalises every field', () => {
    expect(
      parseConfig(
        {
          provider: 'openai-compatible',
          baseUrl: 'https://gw.example/api',
          apiKey: SECRET,
          model: 'gpt-x',
          timeoutMs: 30000,
          maxRetries: 3,
        },
        'gw.json',
      ),
    ).toEqual({
      path: 'gw.json',
      shape: 'gateway',
      baseUrl: 'https://gw.example/api',
      apiKey: SECRET,
      apiKeyRaw: SECRET,
      model: 'gpt-x',
      timeoutMs: 30000,
      maxRetries: 3,
    });
  });
});

describe('parseConfig: errors name the field path and never the value', () => {
  test.each([
    [{ slo: { ttft_ms: '500' } }, 'slo.ttft_ms: expected number, got string'],
    [{ slo: { ttft_ms: -1 } }, 'slo.ttft_ms: expected number to be >0'],
    [{ slo: { ttft: 500 } }, 'slo.ttft: unknown field (did you mean "ttft_ms"?)'],
    [{ base_url: 'http://x', modelid: 'm' }, 'modelid: unknown field (did you mean "model_id"?)'],
    [{ base_url: 42 }, 'base_url: expected string, got number'],
    [{ base_url: 'localhost:8000' }, 'base_url: expected an http:// or https:// URL'],
    [{ api_key: 123 }, 'api_key: expected string, got number'],
    [{ model_id: null }, 'model_id: expected string, got null'],
    [{ slo: [] }, 'slo: expected object, got array'],
    [{ provider: 'openai-compatible', timeoutMs: '30s' }, 'timeoutMs: expected number, got string'],
    [{ provider: 'openai-compatible', maxRetries: 1.5 }, 'maxRetries: expected int'],
    [{ provider: 'anthropic' }, 'provider: expected one of "openai-compatible"'],
    [
      { provider: 'openai-compatible', base_url: 'http://x' },
      'base_url: unknown field (did you mean "baseUrl"?)',
    ],
    [
      { baseUrl: 'http://x', apiKey: SECRET, api_key: SECRET },
      'api_key: unknown field (did you mean "apiKey"?)',
    ],
  ])('%j → %s', (value, line) => {
    const err = configError(() => parseConfig(value, '/etc/goodput.json'));
    expect(err.message).toContain('/etc/goodput.json');
    expect(err.message).toContain(line);
    expect(err.message).not.toContain(SECRET);
    expect(err.hint).toMatch(/shape/);
  });

  test('reports every problem at once', () => {
    const err = configError(() => parseConfig({ base_url: 1, model_id: 2, extra: true }, 'c.json'));
    expect(err.message).toContain('base_url:');
    expect(err.message).toContain('model_id:');
    expect(err.message).toContain('extra: unknown field');
  });

  test.each([
    [[], 'expected a JSON object, got array'],
    ['text', 'expected a JSON object, got string'],
    [null, 'expected a JSON object, got null'],
  ])('a non-object %j is rejected', (value, text) => {
    expect(configError(() => parseConfig(value, 'c.json')).message).toContain(text);
  });
});

describe('detectShape', () => {
  test.each([
    [{ provider: 'x' }, 'gateway'],
    [{ baseUrl: 'x', model: 'm' }, 'gateway'],
    [{ base_url: 'x' }, 'settings'],
    [{}, 'settings'],
    [{ base_url: 'x', model_id: 'm', apiKey: 'k' }, 'settings'],
  ])('%j is %s', (value, shape) => expect(detectShape(value)).toBe(shape));
});

describe('loadConfigFile', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'goodput-config-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('reads a valid file (a BOM is tolerated)', async () => {
    const path = join(dir, 'settings.json');
    await writeFile(path, `\uFEFF${JSON.stringify({ base_url: 'http://h:1', model_id: 'm' })}`);
    expect(await loadConfigFile(path)).toMatchObject({ path, baseUrl: 'http://h:1', model: 'm' });
  });

  test('invalid JSON names the file and the position without quoting the text', async () => {
    const path = join(dir, 'broken.json');
    await writeFile(path, `{\n  "api_key": "${SECRET}",\n}`);
    const err = (await loadConfigFile(path).catch((e) => e)) as GoodputError;
    expect(err).toBeInstanceOf(GoodputError);
    expect(err.code).toBe('E_CONFIG');
    expect(err.message).toContain(path);
    expect(err.message).toMatch(/line 3/);
    expect(err.message).not.toContain(SECRET);
  });

  test('a missing file is E_CONFIG naming it', async () => {
    const path = join(dir, 'absent.json');
    await expect(loadConfigFile(path)).rejects.toMatchObject({
      code: 'E_CONFIG',
      message: expect.stringContaining(path),
    });
  });
});
