import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCliInProcess } from './helpers/cli.js';
import { startHostileServer } from './helpers/hostile-server.js';

const dir = mkdtempSync(join(tmpdir(), 'goodput-bounds-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('inputs that cannot be meant are usage errors (exit 2) with the fix, never E_INTERNAL', () => {
  const cases: Array<[string, string[], RegExp]> = [
    [
      'sim on port 99999',
      ['sim', '--port', '99999'],
      /--port must be at least 0 and at most 65535, got 99999/,
    ],
    ['run against port 99999', ['run', '--url', 'http://127.0.0.1:99999'], /port 99999 is beyond 65535/],
    ['--timeout 0', ['run', '--timeout', '0'], /--timeout must be at least 1ms/],
    [
      '--prompt-tokens 100000000',
      ['run', '--prompt-tokens', '100000000'],
      /--prompt-tokens must be at most 2000000/,
    ],
    [
      '--turn-tokens 1e9 (a heap-sized turn)',
      ['run', '--sessions', '2', '--turn-tokens', '1000000000'],
      /--turn-tokens must be at least 1 and at most 2000000/,
    ],
    [
      'trace analyze --bins 1e9 (a stack overflow)',
      ['trace', 'analyze', 'trace.jsonl', '--bins', '1000000000'],
      /--bins must be at least 1 and at most 10000/,
    ],
    [
      'watch --metrics-port 70000',
      ['watch', '--metrics-port', '70000'],
      /--metrics-port must be at least 0 and at most 65535/,
    ],
    // Bounds of commands' own flags, each in its option entry.
    [
      'trace analyze --block-size 0',
      ['trace', 'analyze', 'trace.jsonl', '--block-size', '0'],
      /--block-size must be at least 1, got 0/,
    ],
    ['adr new --choose 0', ['adr', 'new', '--choose', '0'], /--choose must be at least 1, got 0/],
    [
      'sweep --min-attainment 2',
      ['sweep', '--min-attainment', '2'],
      /--min-attainment must be between 0 and 1, got 2/,
    ],
    [
      'sweep --concurrency-max 0',
      ['sweep', '--concurrency-max', '0'],
      /--concurrency-max must be at least 1 and at most 100000, got 0/,
    ],
    [
      'compare --resamples 50',
      ['compare', 'a', 'b', '--resamples', '50'],
      /--resamples must be at least 100, got 50/,
    ],
    [
      'compare --min-effect 1',
      ['compare', 'a', 'b', '--min-effect', '1'],
      /--min-effect must be at least 0 and under 1, got 1/,
    ],
    ['history --window 0s', ['history', '--window', '0s'], /--window must be longer than 0, got 0ms/],
  ];
  it.each(cases)('%s', async (_name, argv, message) => {
    const r = await runCliInProcess(argv, { cwd: dir });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).toMatch(/hint|give --|ports run/i);
    expect(r.stderr).not.toMatch(/E_INTERNAL|this is a bug/);
  });

  it('a key file holding "Bearer <key>" is refused before any request, never sent as "Bearer Bearer"', async () => {
    const server = await startHostileServer();
    try {
      const keyFile = join(dir, 'key.txt');
      const key = 'key-canary-bearer-0123456789';
      writeFileSync(keyFile, `Bearer ${key}\n`);
      const r = await runCliInProcess(
        [
          'run',
          '--url',
          server.url,
          '--model',
          'm',
          '--api-key-file',
          keyFile,
          '-n',
          '2',
          '--out',
          join(dir, 'out'),
        ],
        { cwd: dir },
      );
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/starts with "Bearer "/);
      expect(r.stderr).toMatch(/drop the "Bearer " prefix/);
      expect(`${r.stdout}${r.stderr}`).not.toContain(key.slice(0, 8));
      expect(server.requests).toHaveLength(0);
    } finally {
      await server.close();
    }
  });
});
