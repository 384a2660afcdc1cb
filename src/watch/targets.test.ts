import { describe, expect, it } from 'vitest';
import { GoodputError } from '../errors.js';
import { parseTargetsText } from './targets.js';

const KEY = 'key-canary-targets-0123456789';
const file = 'targets: [{ name: eu, url: "http://127.0.0.1:8000", key_env: EU_KEY }]';

describe('watch targets: keys from key_env', () => {
  it('takes the key from the variable, trimmed', () => {
    const [t] = parseTargetsText(file, 'targets.yaml', { EU_KEY: `${KEY}\n` });
    expect(t!.apiKey).toBe(KEY);
  });
  it('refuses a variable holding "Bearer <key>", naming the variable and never the key', () => {
    const err = (() => {
      try {
        parseTargetsText(file, 'targets.yaml', { EU_KEY: `Bearer ${KEY}` });
      } catch (e) {
        return e as GoodputError;
      }
    })();
    expect(err).toBeInstanceOf(GoodputError);
    expect(err!.code).toBe('E_KEY');
    expect(err!.message).toMatch(/EU_KEY starts with "Bearer "/);
    expect(`${err!.message} ${err!.hint}`).not.toContain(KEY.slice(0, 8));
  });
});
