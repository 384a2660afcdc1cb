import { describe, expect, it, test } from 'vitest';
import { describeKey, inspectKey, redactCommandLine, redactUrl } from './secrets.js';

const KEY = 'key-test-9f8e7d6c5b4a3210ZYXW';

describe('describeKey', () => {
  test.each([
    [undefined, 'no key'],
    ['', 'no key'],
    ['a', '1 character'],
    ['short-key', '9 characters'],
    [KEY, `${KEY.length} characters, ending …ZYXW`],
  ])('%j → %s', (key, text) => {
    const description = describeKey(key);
    expect(description).toBe(text);
    if (key && key.length > 4) expect(description).not.toContain(key.slice(0, -4));
  });
});

describe('inspectKey', () => {
  test.each([
    [KEY, KEY, []],
    [`${KEY}\n`, KEY, ['ends with a newline']],
    [`${KEY}\r\n`, KEY, ['ends with a newline']],
    [`  ${KEY}`, KEY, ['starts with spaces']],
    [`\t${KEY} `, KEY, ['starts with a tab', 'ends with spaces']],
    [`"${KEY}"`, `"${KEY}"`, ['wrapped in quotes']],
    [`Bearer ${KEY}`, `Bearer ${KEY}`, ['whitespace inside', 'starts with "Bearer "']],
    ['  \n', '', ['empty']],
  ])('%j → trimmed, with problems %o', (raw, key, problems) => {
    const result = inspectKey(raw);
    expect(result.key).toBe(key);
    expect(result.problems).toHaveLength(problems.length);
    problems.forEach((p, i) => {
      expect(result.problems[i]).toContain(p);
    });
    for (const p of result.problems) expect(p).not.toContain(KEY);
  });
});

describe('redactUrl', () => {
  test.each([
    ['http://localhost:8000', 'http://localhost:8000'],
    ['https://user:pa55@gw.example/api', 'https://gw.example/api'],
    ['https://gw.example/openai?api-key=abc123&x=1', 'https://gw.example/openai?api-key=REDACTED&x=1'],
    ['https://gw.example/?token=t0k', 'https://gw.example/?token=REDACTED'],
    ['not a url', 'not a url'],
  ])('%s → %s', (url, safe) => expect(redactUrl(url)).toBe(safe));
});

describe('redactCommandLine', () => {
  const key = 'fake-live-abcdefghijklmnop';
  it.each([
    [
      ['goodput', 'run', '--api-key', key],
      ['goodput', 'run', '--api-key', '[REDACTED]'],
    ],
    [
      ['goodput', 'run', `--api-key=${key}`],
      ['goodput', 'run', '--api-key=[REDACTED]'],
    ],
    [
      ['goodput', 'run', '--header', 'X-Tenant: acme-42', '-H', 'Authorization: Bearer t0k3n'],
      ['goodput', 'run', '--header', 'X-Tenant: [REDACTED]', '-H', 'Authorization: [REDACTED]'],
    ],
    [
      ['goodput', 'run', '--header=Cookie: s=1'],
      ['goodput', 'run', '--header=Cookie: [REDACTED]'],
    ],
    [
      ['goodput', 'run', '--url', 'http://user:pw@gpu:8000', '--metrics-url=https://h/m?token=abc'],
      ['goodput', 'run', '--url', 'http://gpu:8000', '--metrics-url=https://h/m?token=REDACTED'],
    ],
    // a secret given elsewhere (a config file, the environment) that also shows in a word
    [
      ['goodput', 'run', '--label', `k=${key.slice(0, 12)}`],
      ['goodput', 'run', '--label', 'k=[REDACTED]'],
    ],
    [
      ['goodput', 'run', '--api-key'],
      ['goodput', 'run', '--api-key'],
    ],
  ])('%j → %j', (argv, expected) => {
    expect(redactCommandLine(argv, [key])).toEqual(expected);
  });
});
