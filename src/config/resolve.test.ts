import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { GoodputError } from '../errors.js';
import { refuseUnusableKey, resolveTarget } from './resolve.js';

const FILE_KEY = 'key-from-file-000000000001';
const ENV_GOODPUT = 'key-from-goodput-env-0002';
const ENV_OPENAI = 'key-from-openai-env-00003';
const KEYFILE_KEY = 'key-from-key-file-0000004';

let dir: string;
let settingsPath: string;
let keyFile: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'goodput-resolve-'));
  settingsPath = join(dir, 'settings.json');
  await writeFile(
    settingsPath,
    JSON.stringify({
      base_url: 'http://file-host:8000/',
      api_key: FILE_KEY,
      model_id: 'file-model',
      slo: { ttft_ms: 700, e2el_ms: 9000 },
    }),
  );
  keyFile = join(dir, 'key.txt');
  await writeFile(keyFile, `${KEYFILE_KEY}\n`);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('resolveTarget precedence: flag > env > file > default', () => {
  test('nothing given: the embedded engine, the first model, no key', async () => {
    const t = await resolveTarget({ env: {} });
    expect(t.baseUrl).toBeUndefined();
    expect(t.model).toBeUndefined();
    expect(t.apiKey).toBeUndefined();
    expect(t.source.baseUrl.source).toBe('default');
    expect(t.source.model.source).toBe('default');
    expect(t.source.apiKey.source).toBe('default');
  });

  test('file only: every value from the file, with its field named', async () => {
    const t = await resolveTarget({ flags: { config: settingsPath }, env: {} });
    expect(t.baseUrl).toBe('http://file-host:8000');
    expect(t.model).toBe('file-model');
    expect(t.apiKey).toBe(FILE_KEY);
    expect(t.slo).toEqual({ ttftMs: 700, e2elMs: 9000 });
    expect(t.source.baseUrl).toEqual({ source: 'file', detail: `${settingsPath}: base_url` });
    expect(t.source.apiKey).toEqual({ source: 'file', detail: `${settingsPath}: api_key` });
    expect(t.source.model).toEqual({ source: 'file', detail: `${settingsPath}: model_id` });
    expect(t.source.configFile).toBe(settingsPath);
  });

  test('env over file', async () => {
    const env = {
      GOODPUT_BASE_URL: 'http://env-host:1',
      GOODPUT_MODEL: 'env-model',
      OPENAI_API_KEY: ENV_OPENAI,
    };
    const t = await resolveTarget({ flags: { config: settingsPath }, env });
    expect([t.baseUrl, t.model, t.apiKey]).toEqual(['http://env-host:1', 'env-model', ENV_OPENAI]);
    expect(t.source.baseUrl).toEqual({ source: 'env', detail: 'GOODPUT_BASE_URL' });
    expect(t.source.apiKey).toEqual({ source: 'env', detail: 'OPENAI_API_KEY' });
  });

  test('OPENAI_BASE_URL like OPENAI_API_KEY: after GOODPUT_BASE_URL, before the file, its /v1 without a warning', async () => {
    const openai = await resolveTarget({
      flags: { config: settingsPath },
      env: { OPENAI_BASE_URL: 'https://gw.example/v1/' },
    });
    expect(openai.baseUrl).toBe('https://gw.example/v1');
    expect(openai.source.baseUrl).toEqual({ source: 'env', detail: 'OPENAI_BASE_URL' });
    expect(openai.warnings).toEqual([]);
    const both = await resolveTarget({
      env: { OPENAI_BASE_URL: 'https://gw.example/v1', GOODPUT_BASE_URL: 'http://env-host:1' },
    });
    expect(both.source.baseUrl.detail).toBe('GOODPUT_BASE_URL');
    const flag = await resolveTarget({
      flags: { url: 'http://flag:2' },
      env: { OPENAI_BASE_URL: 'https://gw/v1' },
    });
    expect(flag.baseUrl).toBe('http://flag:2');
  });

  test('GOODPUT_API_KEY over OPENAI_API_KEY', async () => {
    const t = await resolveTarget({ env: { OPENAI_API_KEY: ENV_OPENAI, GOODPUT_API_KEY: ENV_GOODPUT } });
    expect(t.apiKey).toBe(ENV_GOODPUT);
    expect(t.source.apiKey.detail).toBe('GOODPUT_API_KEY');
  });

  test('flags over env over file; --api-key-file over both key variables', async () => {
    const t = await resolveTarget({
      flags: {
        config: settingsPath,
        url: 'http://flag-host:2',
        model: 'flag-model',
        apiKeyFile: 'key.txt',
        slo: 'ttft=300',
      },
      env: {
        GOODPUT_BASE_URL: 'http://env-host:1',
        GOODPUT_MODEL: 'env-model',
        GOODPUT_API_KEY: ENV_GOODPUT,
      },
      cwd: dir,
    });
    expect([t.baseUrl, t.model, t.apiKey]).toEqual(['http://flag-host:2', 'flag-model', KEYFILE_KEY]);
    expect(t.source.baseUrl).toEqual({ source: 'flag', detail: '--url' });
    expect(t.source.apiKey).toEqual({ source: 'flag', detail: `--api-key-file ${keyFile}` });
    // Per objective: the flag's ttft replaces the file's, the file's e2el stays.
    expect(t.slo).toEqual({ ttftMs: 300, e2elMs: 9000 });
    expect(t.source.slo?.source).toBe('flag');
  });

  test('GOODPUT_CONFIG names the file when there is no --config', async () => {
    const t = await resolveTarget({ env: { GOODPUT_CONFIG: settingsPath } });
    expect(t.model).toBe('file-model');
  });

  test('gateway-shaped file: fields named in camelCase, timeout and retries carried', async () => {
    const path = join(dir, 'gateway.json');
    await writeFile(
      path,
      JSON.stringify({
        provider: 'openai-compatible',
        baseUrl: 'https://gw',
        apiKey: FILE_KEY,
        model: 'g',
        timeoutMs: 1000,
        maxRetries: 2,
      }),
    );
    const t = await resolveTarget({ flags: { config: path }, env: {} });
    expect(t.source.apiKey.detail).toBe(`${path}: apiKey`);
    expect([t.timeoutMs, t.maxRetries]).toEqual([1000, 2]);
  });
});

describe('resolveTarget keys', () => {
  test('a key with a trailing newline is trimmed for use, kept raw, and flagged', async () => {
    const t = await resolveTarget({ env: { GOODPUT_API_KEY: `${ENV_GOODPUT}\n` } });
    expect(t.apiKey).toBe(ENV_GOODPUT);
    expect(t.apiKeyRaw).toBe(`${ENV_GOODPUT}\n`);
    expect(t.keyProblems).toEqual([expect.stringContaining('ends with a newline')]);
  });

  test('an empty key variable is skipped with a warning', async () => {
    const t = await resolveTarget({ env: { GOODPUT_API_KEY: '  ', OPENAI_API_KEY: ENV_OPENAI } });
    expect(t.apiKey).toBe(ENV_OPENAI);
    expect(t.warnings).toEqual([expect.stringContaining('GOODPUT_API_KEY is set but empty')]);
  });

  test('an unreadable or empty key file is E_KEY and says nothing of any key', async () => {
    const empty = join(dir, 'empty-key.txt');
    await writeFile(empty, '\n');
    for (const apiKeyFile of [join(dir, 'missing-key.txt'), empty]) {
      const err = await resolveTarget({ flags: { apiKeyFile }, env: { GOODPUT_API_KEY: ENV_GOODPUT } }).catch(
        (e) => e,
      );
      expect(err).toBeInstanceOf(GoodputError);
      expect(err.code).toBe('E_KEY');
      expect(err.message).toContain(apiKeyFile);
      expect(err.message).not.toContain(ENV_GOODPUT);
    }
  });

  test('a key file that never ends (/dev/zero) is refused at 64 KiB, not read whole', async () => {
    const err = await resolveTarget({ flags: { apiKeyFile: '/dev/zero' }, env: {} }).catch((e) => e);
    expect(err).toBeInstanceOf(GoodputError);
    expect(err.code).toBe('E_KEY');
    expect(err.message).toBe('cannot read --api-key-file /dev/zero (larger than 65536 bytes)');
  });
});

describe('refuseUnusableKey', () => {
  test('a key file holding "Bearer <key>" is E_KEY naming the file and the fix, never the key', async () => {
    const bearerFile = join(dir, 'bearer-key.txt');
    await writeFile(bearerFile, `Bearer ${KEYFILE_KEY}\n`);
    const t = await resolveTarget({ flags: { apiKeyFile: bearerFile } });
    const err = (() => {
      try {
        refuseUnusableKey(t);
      } catch (e) {
        return e as GoodputError;
      }
    })();
    expect(err).toBeInstanceOf(GoodputError);
    expect(err!.code).toBe('E_KEY');
    expect(err!.message).toContain(bearerFile);
    expect(err!.message).toContain('Bearer Bearer');
    expect(err!.hint).toMatch(/drop the "Bearer " prefix/);
    expect(`${err!.message} ${err!.hint}`).not.toContain(KEYFILE_KEY.slice(0, 8));
  });
  test('the same from a variable, any case; a plain key passes', async () => {
    const t = await resolveTarget({ env: { OPENAI_API_KEY: `bearer ${ENV_OPENAI}` } });
    expect(() => refuseUnusableKey(t)).toThrow(/OPENAI_API_KEY starts with "Bearer "/);
    expect(() => refuseUnusableKey({ ...t, apiKey: ENV_OPENAI })).not.toThrow();
    expect(() => refuseUnusableKey({ ...t, apiKey: undefined })).not.toThrow();
  });
});

describe('resolveTarget errors and warnings', () => {
  test('a base URL that is not http(s) is E_USAGE naming where it came from, credentials removed', async () => {
    const err = await resolveTarget({ env: { GOODPUT_BASE_URL: 'ftp://user:pw@h' } }).catch((e) => e);
    expect(err).toBeInstanceOf(GoodputError);
    expect(err.code).toBe('E_USAGE');
    expect(err.message).toContain('GOODPUT_BASE_URL');
    expect(err.message).not.toContain('pw');
  });

  test('a base URL ending in /v1 is kept and warned about', async () => {
    const t = await resolveTarget({ flags: { url: 'http://h:8000/v1/' }, env: {} });
    expect(t.baseUrl).toBe('http://h:8000/v1');
    expect(t.warnings.join('\n')).toContain('ends in /v1');
  });

  test('a bad --slo is E_USAGE', async () => {
    await expect(resolveTarget({ flags: { slo: 'ttft=soon' }, env: {} })).rejects.toMatchObject({
      code: 'E_USAGE',
    });
  });
});
