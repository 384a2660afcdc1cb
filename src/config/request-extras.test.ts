import { describe, expect, it } from 'vitest';
import { GoodputError } from '../errors.js';
import { parseExtraBody, parseHeaders, sessionHeaderName } from './request-extras.js';

function usage(fn: () => unknown): GoodputError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(GoodputError);
    expect((e as GoodputError).code).toBe('E_USAGE');
    return e as GoodputError;
  }
  throw new Error('expected a usage error');
}

describe('parseHeaders', () => {
  it('reads K: V, keeps colons and commas in the value, and takes env: values from the environment', () => {
    const env = { GW_KEY: '  gw-secret-123456  ' };
    const r = parseHeaders(
      ['X-Route: canary', 'X-List:a,b:c', 'X-Api-Key: env:GW_KEY', 'X-Other: $GW_KEY'],
      env,
    );
    expect(r.headers).toEqual({
      'X-Route': 'canary',
      'X-List': 'a,b:c',
      'X-Api-Key': 'gw-secret-123456',
      'X-Other': 'gw-secret-123456',
    });
    expect(r.secrets).toEqual(['gw-secret-123456', 'gw-secret-123456']);
  });

  it('counts the values of credential headers typed literally as secrets', () => {
    const r = parseHeaders(
      ['Authorization: Basic dXNlcjpwYXNz', 'X-Route: canary-route', 'X-Token: abc'],
      {},
    );
    expect(r.secrets).toEqual(['Basic dXNlcjpwYXNz']); // X-Token's 'abc' is too short to tell from other text
  });

  it.each<[string[], Record<string, string>, boolean, RegExp, RegExp]>([
    [['X-Route canary'], {}, false, /expects 'NAME: VALUE'/, /--header 'X-Route: canary'/],
    [[': v'], {}, false, /expects 'NAME: VALUE'/, /env:/],
    [['X-Key: env:MISSING'], {}, false, /MISSING is not set/, /export MISSING=/],
    [['X-Key: env:EMPTY'], { EMPTY: ' ' }, false, /EMPTY is empty/, /export EMPTY=/],
    [['Host: evil'], {}, false, /--header Host cannot be set/, /--url/],
    [['Content-Type: text/plain'], {}, false, /cannot be set/, /JSON/],
    [['Authorization: Bearer x'], {}, true, /both set the Authorization header/, /keep one/],
    [['X-A: 1', 'x-a: 2'], {}, false, /given twice/, /once/],
  ])('%j is refused', (items, env, keySet, message, hint) => {
    const e = usage(() => parseHeaders(items, env, keySet));
    expect(e.message).toMatch(message);
    expect(e.hint).toMatch(hint);
  });

  it('never puts an env value in an error', () => {
    const e = usage(() => parseHeaders(['X-Key: env:K', 'X-Key: again'], { K: 'k-secret-value-99' }));
    expect(`${e.message} ${e.hint}`).not.toContain('k-secret-value-99');
  });
});

describe('parseExtraBody', () => {
  it('takes a JSON object as is', () => {
    const body = '{"priority": 3, "chat_template_kwargs": {"enable_thinking": false}, "lora_request": null}';
    expect(parseExtraBody(body)).toEqual({
      priority: 3,
      chat_template_kwargs: { enable_thinking: false },
      lora_request: null,
    });
  });

  it.each<[string, RegExp, RegExp]>([
    ['{bad', /--extra-body is not valid JSON/, /@body.json/],
    ['[1,2]', /must be a JSON object, got an array/, /chat_template_kwargs/],
    ['null', /got null/, /extra-body/],
    ['"x"', /got string/, /extra-body/],
    ['{"model": "lora-a"}', /sets "model"/, /--model NAME/],
    ['{"stream": false}', /sets "stream"/, /always streams/],
    ['{"max_tokens": 5}', /sets "max_tokens"/, /--max-tokens/],
    ['{"ignore_eos": true}', /sets "ignore_eos"/, /--ignore-eos/],
    ['{"n": 2}', /"n", which changes what is measured/, /off by n/],
    ['{"best_of": 3}', /"best_of", which changes/, /streams one/],
    ['{"echo": true}', /"echo", which changes/, /count the prompt/],
    ['{"min_tokens": 64}', /"min_tokens", which changes/, /--ignore-eos/],
    ['{"max_output_tokens": 64}', /sets "max_output_tokens"/, /--max-tokens/],
    ['{"input": "other prompt"}', /sets "input"/, /workload flags/],
    ['{"instructions": "be brief"}', /sets "instructions"/, /--system-prompt-tokens/],
  ])('%s is refused', (text, message, hint) => {
    const e = usage(() => parseExtraBody(text));
    expect(e.message).toMatch(message);
    expect(e.hint).toMatch(hint);
  });
});

describe('sessionHeaderName', () => {
  it.each<[string | undefined, Record<string, string>, string | false]>([
    [undefined, {}, 'X-Session-ID'],
    ['X-Conversation-Id', {}, 'X-Conversation-Id'],
    ['  x-affinity ', { 'X-Route': 'blue' }, 'x-affinity'],
    ['none', {}, false],
    ['NONE', {}, false],
    // --header of the default name alone: the user's own value is sent, no session id.
    [undefined, { 'x-session-id': 'mine' }, false],
  ])('--session-header %s with headers %j is %s', (given, headers, expected) => {
    expect(sessionHeaderName(given, headers)).toBe(expected);
  });

  it.each<[string, Record<string, string>, RegExp]>([
    ['Authorization', {}, /credential header/],
    ['X-Api-Key', {}, /credential header/],
    ['X-Session-Token', {}, /credential header/],
    ['Cookie', {}, /credential header/],
    ['Proxy-Authorization', {}, /credential header/],
    ['Content-Type', {}, /cannot be set: the body is JSON/],
    ['Host', {}, /cannot be set/],
    ['X Session', {}, /expects a header name/],
    ['', {}, /expects a header name/],
    ['X-Route', { 'x-route': 'blue' }, /also given by --header x-route/],
  ])('refuses %s (headers %j)', (given, headers, message) => {
    const e = usage(() => sessionHeaderName(given, headers));
    expect(e.message).toMatch(message);
    expect(e.hint).toMatch(/--session-header|--header/);
  });
});
