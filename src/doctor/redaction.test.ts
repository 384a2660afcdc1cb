import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { runCliInProcess } from '../../test/helpers/cli.js';
import { chatChunk, json, loopbacksClosedAfterEach } from '../../test/helpers/loopback.js';
import { doctorCommand } from './command.js';

const KEY = 'test-doctor-echo-0123456789abcdefXYZ';
const serve = loopbacksClosedAfterEach();

/** The first part of the key (6+ characters, from either end) found in the text. */
function leak(text: string): string | undefined {
  for (let n = KEY.length; n >= 6; n--) {
    for (const part of [KEY.slice(0, n), KEY.slice(KEY.length - n)]) if (text.includes(part)) return part;
  }
  return undefined;
}

type Place = 'models-401' | 'completion-200-error' | 'stream-error-object' | 'model-id';

/** A server that echoes the Authorization header back at `offset` characters into `place`. */
function echoServer(place: Place, offset: number) {
  return serve((req, res: ServerResponse, body) => {
    const echo = `${'x'.repeat(offset)}${req.headers.authorization} (echoed)`;
    const path = req.url ?? '';
    if (path.endsWith('/models')) {
      if (place === 'models-401') return json(res, 401, { error: { message: echo } });
      return json(res, 200, { data: [{ id: place === 'model-id' ? echo : 'm' }] });
    }
    const stream = (body as { stream?: boolean }).stream === true;
    if (!stream) {
      if (place === 'completion-200-error') return json(res, 200, { error: { message: echo, code: 1 } });
      return json(res, 200, { choices: [{ message: { content: 'hi' } }], usage: { completion_tokens: 1 } });
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    if (place === 'stream-error-object')
      res.write(`data: ${JSON.stringify({ error: { message: echo } })}\n\n`);
    else res.write(`data: ${chatChunk({ content: 'hi' }, 'stop')}\n\n`);
    res.end('data: [DONE]\n\n');
  });
}

async function doctor(url: string, json: boolean) {
  return runCliInProcess(['doctor', '--url', url, '--model', 'm', ...(json ? ['--json'] : [])], {
    cwd: process.cwd(),
    env: { GOODPUT_API_KEY: KEY },
    commands: [doctorCommand],
  });
}

describe('doctor never shows the key a server echoes, whole or in part', () => {
  // Each place is cut somewhere (error messages at 300, a 200's error object at 200, a stream
  // error object at 300): offsets walk the echoed key across every cut.
  const cases: Array<{ place: Place; stage: number; cuts: number[] }> = [
    { place: 'models-401', stage: 12, cuts: [300] },
    { place: 'completion-200-error', stage: 13, cuts: [200] },
    { place: 'stream-error-object', stage: 14, cuts: [300] },
  ];
  for (const { place, stage, cuts } of cases) {
    it(`${place}: at every offset across the cut, on stdout and in --json`, async () => {
      const echoLen = `Bearer ${KEY}`.length;
      let checked = 0;
      for (const cut of cuts) {
        for (let offset = cut - echoLen - 30; offset <= cut; offset += 1) {
          const lb = await echoServer(place, offset);
          for (const asJson of [false, true]) {
            const r = await doctor(lb.url, asJson);
            expect(r.code, `${place} at ${offset}`).toBe(stage);
            expect(
              leak(r.stdout + r.stderr),
              `${place} at ${offset}${asJson ? ' --json' : ''}`,
            ).toBeUndefined();
            checked++;
          }
          await lb.close();
        }
      }
      expect(checked).toBeGreaterThan(60);
    }, 120_000);
  }

  it('the echo is shown, redacted, where the server put it (the server words stay useful)', async () => {
    const lb = await echoServer('completion-200-error', 0);
    const r = await doctor(lb.url, false);
    expect(r.stdout).toContain('Bearer [REDACTED] (echoed)');
    const j = await doctor(lb.url, true);
    const report = JSON.parse(j.stdout) as { steps: Array<{ cause?: string }> };
    expect(report.steps.at(-1)?.cause).toContain('Bearer [REDACTED] (echoed)');
  });

  it('a model id carrying the key is redacted in details and in --json data', async () => {
    const lb = await echoServer('model-id', 3);
    const r = await doctor(lb.url, true);
    expect(leak(r.stdout)).toBeUndefined();
    expect(r.stdout).toContain('xxxBearer [REDACTED] (echoed)');
  });
});
