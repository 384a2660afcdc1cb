/**
 * One base-URL normalisation for run and doctor: the same refusal (message and fix) for a
 * query string, a fragment and credentials, and the same correction of an endpoint path.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SimServer, startSim } from '../src/sim/index.js';
import { runCliInProcess } from './helpers/cli.js';

let work: string;
let sim: SimServer;
beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'goodput-url-'));
  sim = await startSim({ host: '127.0.0.1', port: 0, seed: 2, slowdown: 0.05 });
});
afterAll(async () => {
  await sim.close();
  rmSync(work, { recursive: true, force: true });
});

const cli = (argv: string[]) => runCliInProcess(argv, { cwd: work });
const SMALL = ['--requests', '2', '--concurrency', '1', '--prompt-tokens', '16', '--max-tokens', '4'];

describe('run and doctor normalise a base URL the same way', () => {
  it.each([
    ['a query string', '/?utm_source=x', /--url: the base URL carries a query string \(\?utm_source=x\)/],
    ['a fragment', '/v1#top', /--url: the base URL carries a fragment \(#top\)/],
    ['credentials', '', /--url: the base URL carries credentials/],
  ])('%s: refused by both with the same cause and the fixed URL', async (_what, suffix, cause) => {
    const url =
      suffix === '' ? sim.url.replace('http://', 'http://user:s3cret-pass@') : `${sim.url}${suffix}`;
    const run = await cli(['run', '--url', url, ...SMALL, '--out', join(work, 'never')]);
    const doctor = await cli(['doctor', '--url', url]);
    expect(run.code).toBe(2);
    expect(doctor.code).toBe(10);
    const runLine = run.stderr.split('\n').find((l) => cause.test(l))!;
    expect(runLine).toBeDefined();
    const said = runLine.slice(runLine.indexOf('--url:'));
    expect(doctor.stdout).toContain(`cause: ${said}`);
    const fixed = suffix === '#top' || suffix === '/v1#top' ? `${sim.url}/v1` : sim.url;
    expect(run.stderr).toContain(`use --url ${fixed}`);
    expect(doctor.stdout).toContain(`fix: use --url ${fixed}`);
    expect(run.stderr + doctor.stdout).not.toContain('s3cret-pass');
  });

  it('an endpoint path at the end: both drop it, say so, and go on', async () => {
    const url = `${sim.url}/v1/chat/completions`;
    const note = `--url ended with the endpoint path /v1/chat/completions, which goodput appends itself: using the base URL ${sim.url}`;
    const run = await cli([
      'run',
      '--url',
      url,
      '--model',
      sim.model,
      ...SMALL,
      '--out',
      join(work, 'endpoint'),
    ]);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(note);
    const doctor = await cli(['doctor', '--url', url, '--model', sim.model]);
    expect(doctor.code).toBe(0);
    expect(doctor.stdout).toContain(`note: ${note}`);
  });
});
