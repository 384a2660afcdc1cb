/**
 * A hostile server writes terminal control sequences into what goodput prints: its model id sets
 * the window title and erases the line, its error bodies overwrite the line with "PASS", reverse
 * text with a bidi override, and try a CI workflow command on a line of its own. Through run,
 * doctor, report and gate, none of it reaches stdout or stderr as something a terminal or a CI
 * log obeys; each is shown as an escape.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliInProcess } from './helpers/cli.js';
import { json, type Loopback, startLoopback } from './helpers/loopback.js';

const TITLE = '\x1b]0;PWNED\x07';
const ERASE = '\r\x1b[2K';
const MODEL = `llama${TITLE}${ERASE}\n::warning::from the model id`;
const SAID = `bad request${ERASE}PASS \u202eLIAF\u202c\n::error::injected by the server`;

/** Whatever a terminal or a CI log would obey, other than goodput's own colours and line ends. */
function obeyed(text: string): string[] {
  const found: string[] = [];
  const raw = text.replace(/\x1b\[(?:[012]|3[13])?m|\x1b\[K|\r\n/g, '');
  for (const m of raw.matchAll(/[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g)) {
    found.push(
      `U+${m[0].charCodeAt(0).toString(16)} at ${m.index}: ${JSON.stringify(raw.slice(Math.max(0, m.index - 20), m.index + 10))}`,
    );
  }
  for (const line of text.split('\n')) if (line.startsWith('::')) found.push(`workflow command: ${line}`);
  return found;
}

let server: Loopback;
let work: string;
beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'goodput-terminal-'));
  server = await startLoopback((req, res) => {
    if (req.url?.startsWith('/v1/models')) {
      json(res, 200, { object: 'list', data: [{ id: MODEL, object: 'model', owned_by: TITLE }] });
      return;
    }
    json(res, 400, { error: { message: SAID, type: `invalid${TITLE}`, code: ERASE } });
  });
});
afterAll(async () => {
  await server?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('control sequences from a hostile server', () => {
  it('run: the model id and the error bodies are shown as escapes, obeyed nowhere', async () => {
    const r = await runCliInProcess(
      ['run', '--url', server.url, '--requests', '2', '--max-tokens', '4', '--out', join(work, 'r')],
      { cwd: work },
    );
    expect(r.code).toBe(3); // every request failed: unmeasurable
    expect(obeyed(r.stdout)).toEqual([]);
    expect(obeyed(r.stderr)).toEqual([]);
    expect(r.stdout + r.stderr).toContain('llama\\x1b]0;PWNED\\x07\\x0d\\x1b[2K');
    expect(r.stdout + r.stderr).toContain('\\x1b[2KPASS \\u202eLIAF\\u202c');
  });

  it('doctor: the model list and what the server said', async () => {
    const r = await runCliInProcess(['doctor', '--url', server.url], { cwd: work });
    expect(r.code).not.toBe(0);
    expect(obeyed(r.stdout)).toEqual([]);
    expect(obeyed(r.stderr)).toEqual([]);
    expect(r.stdout).toContain('llama\\x1b]0;PWNED');
  });

  it('report and gate read the saved run: the same', async () => {
    for (const [argv, shown] of [
      [['report', join(work, 'r'), '--format', 'text'], 'llama\\x1b]0;PWNED'],
      // Markdown escapes the backslash (it renders as one)
      [['report', join(work, 'r'), '--format', 'markdown'], 'llama\\\\x1b]0;PWNED'],
      [['gate', '--from', join(work, 'r'), '--max-error-rate', '0.5'], '\\x1b[2KPASS \\u202eLIAF'],
    ] as const) {
      const r = await runCliInProcess(argv, { cwd: work });
      expect(obeyed(r.stdout), argv.join(' ')).toEqual([]);
      expect(obeyed(r.stderr), argv.join(' ')).toEqual([]);
      expect(r.stdout + r.stderr, argv.join(' ')).toContain(shown);
    }
  });
});
