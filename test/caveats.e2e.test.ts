/**
 * Caveats travel with the numbers, end to end: a sweep against a loopback server that (a)
 * counts every prompt as 329 tokens whatever was sent (another tokenizer) and (b) holds the
 * event loop it shares with the in-process client once 3 requests are in flight, so the
 * point at concurrency 4 is client-bound by the client's own self-check. The table, sweep.json, the knee/capacity lines and the report must all say so.
 */

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../src/errors.js';
import { parseArgv } from '../src/flags/index.js';
import { gateCommand } from '../src/gate/command.js';
import { reportCommand } from '../src/report/html/command.js';
import { sweepCommand } from '../src/sweep/command.js';
import type { RunSummary, SweepResult } from '../src/types.js';
import { context } from './helpers/cli.js';
import { chatChunk, json, type Loopback, sleep, startLoopback, writeEvents } from './helpers/loopback.js';

const SERVER_PROMPT_TOKENS = 329;
/** Longer than the client's event-loop delay limit (50 ms). */
const HOLD_MS = 90;

let work: string;
let server: Loopback;
let inFlight = 0;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'goodput-caveats-e2e-'));
  server = await startLoopback(async (req, res) => {
    if (req.method === 'GET' && req.url === '/v1/models') return json(res, 200, { data: [{ id: 'm' }] });
    if (req.method !== 'POST') return json(res, 404, {});
    inFlight++;
    try {
      // The client shares this event loop: holding it is the client's own stall.
      if (inFlight >= 3) {
        const until = performance.now() + HOLD_MS;
        while (performance.now() < until) {
          // busy
        }
      }
      await sleep(5);
      const usage = {
        prompt_tokens: SERVER_PROMPT_TOKENS,
        completion_tokens: 2,
        total_tokens: SERVER_PROMPT_TOKENS + 2,
      };
      await writeEvents(res, [
        chatChunk({ content: 'a' }),
        chatChunk({ content: 'b' }, 'length', usage),
        '[DONE]',
      ]);
    } finally {
      inFlight--;
    }
  });
});
afterAll(async () => {
  await server.close();
  rmSync(work, { recursive: true, force: true });
});

describe('caveats end to end', () => {
  it('a sweep with a client-bound point shows it in its table, sweep.json, knee/capacity lines and report', async () => {
    const out = join(work, 'sweep');
    const args = parseArgv(sweepCommand, [
      '--url',
      server.url,
      '--model',
      'm',
      '--prompt-tokens',
      '256',
      '--max-tokens',
      '2',
      '--requests',
      '12',
      '--concurrency',
      '1,4',
      '--no-server-metrics',
      '--out',
      out,
    ]);
    const ctx = context(args, work);
    expect(await sweepCommand.run(ctx)).toBe(ExitCode.OK);
    const sweep = JSON.parse(readFileSync(join(out, 'sweep.json'), 'utf8')) as SweepResult;
    const at = (c: number) => sweep.points.find((p) => p.load === c)!;
    const ids = (c: number) => (at(c).caveats ?? []).map((x) => x.id);

    // sweep.json: both points carry the server's other count; c=4 is client-bound.
    expect(ids(4)).toContain('client-bound');
    // (c=1 is not asserted clean: on a loaded machine its own loop may lag too.)
    expect(ids(1)).toContain('tokenizer-mismatch');
    const summary4 = JSON.parse(readFileSync(join(at(4).dir, 'summary.json'), 'utf8')) as RunSummary;
    expect(summary4.load.clientBound).toBe(true);
    // The summary states the server's own totals beside the client's, and its caveats.
    const st = summary4.serverTokens!;
    expect(st.requests).toBe(summary4.completed);
    expect(st.inputTokens).toBe(SERVER_PROMPT_TOKENS * st.requests);
    expect(st.clientInputTokens).toBe(summary4.total_input_tokens);
    const sent = summary4.total_input_tokens / summary4.completed;
    const mismatch = at(4).caveats!.find((c) => c.id === 'tokenizer-mismatch')!;
    expect(mismatch.text).toContain(
      `the server counted ${SERVER_PROMPT_TOKENS} tokens per prompt on average against ${sent} sent`,
    );
    expect(summary4.caveats?.map((c) => c.id)).toEqual(
      expect.arrayContaining(['client-bound', 'tokenizer-mismatch']),
    );

    // The table: the c=4 row is marked and its sentence follows.
    const text = ctx.stdout.text;
    const row = text.split('\n').find((l) => /^step\s+c=4 /.test(l))!;
    expect(row).toMatch(/client-bound/);
    expect(text).toMatch(/^ {2}c=4 {2}client-bound: the client was the bottleneck \(event-loop delay/m);
    // Capacity (every point passes, no SLO): read from c=4, so it says so.
    expect(sweep.capacity?.caveats).toContain('client-bound');
    expect(text).toMatch(/^Capacity at SLO: concurrency 4 .*from a point the client limited/m);

    // A gate on the client-bound point passes (no threshold breached) and says what it rests on.
    const gateJson = context(
      parseArgv(gateCommand, ['--from', at(4).dir, '--max-error-rate', '0.5', '--json']),
      work,
    );
    expect(await gateCommand.run(gateJson)).toBe(ExitCode.OK);
    const gated = JSON.parse(gateJson.stdout.text) as { caveats: Array<{ id: string }> };
    expect(gated.caveats.map((c) => c.id)).toContain('client-bound');
    const gateText = context(parseArgv(gateCommand, ['--from', at(4).dir, '--max-error-rate', '0.5']), work);
    expect(await gateCommand.run(gateText)).toBe(ExitCode.OK);
    expect(gateText.stderr.text).toMatch(/warning: caveat client-bound: the client was the bottleneck/);

    // The report of the sweep directory: Markdown and HTML.
    const md = context(parseArgv(reportCommand, [out, '--format', 'markdown']), work);
    expect(await reportCommand.run(md)).toBe(ExitCode.OK);
    expect(md.stdout.text).toMatch(/capacity at SLO comes from a point the client limited/);
    expect(md.stdout.text).toMatch(/concurrency 4: client-bound: the client was the bottleneck/);
    const htmlPath = join(work, 'report.html');
    const html = context(parseArgv(reportCommand, [out, '--out', htmlPath]), work);
    expect(await reportCommand.run(html)).toBe(ExitCode.OK);
    const page = readFileSync(htmlPath, 'utf8');
    expect(page).toMatch(
      /<div class="caveats"><strong>Caveats<\/strong><ul>.*capacity at SLO comes from a point the client limited/,
    );
    expect(page).toContain(`the server counted ${SERVER_PROMPT_TOKENS} tokens per prompt on average`);
  }, 60_000);
});
