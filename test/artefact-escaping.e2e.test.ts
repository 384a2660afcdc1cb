/**
 * A server's model id holding the metacharacters of every format goodput writes for another
 * program (Markdown, HTML, CSV, XML, YAML) reaches each artefact as text of that format:
 * the ADR body (a file meant to be committed and rendered), the Markdown, HTML and CSV reports,
 * the JUnit XML of a gate.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SimServer, startSim } from '../src/sim/index.js';
import { markdownCode } from '../src/util/index.js';
import { runCliInProcess } from './helpers/cli.js';

/** Formula start, code-span end, raw HTML, a script end, CSV and YAML and XML metacharacters. */
const MODEL = `=cmd|' /C calc'!A0 \`<img src=x onerror=alert(1)>\` </script><b>"q" & 'a' | #: {x} \\`;

let sim: SimServer;
let work: string;
beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'goodput-escape-'));
  sim = await startSim({ host: '127.0.0.1', port: 0, seed: 1, slowdown: 0.05, model: MODEL });
  const r = await runCliInProcess(
    ['run', '--url', sim.url, '--requests', '6', '--concurrency', '2', '--max-tokens', '4', '--out', 'run'],
    { cwd: work },
  );
  expect(r.code, r.stderr).toBe(0);
});
afterAll(async () => {
  await sim?.close();
  rmSync(work, { recursive: true, force: true });
});

/** Markdown with code spans taken out: what a renderer reads as Markdown and HTML. */
function outsideCodeSpans(md: string): string {
  return md.replace(/(`+)(?:(?!\1)[\s\S])*?\1/g, '');
}

describe('a model id with every metacharacter', () => {
  it('ADR body: the id is one code span; no raw HTML outside code spans', async () => {
    const r = await runCliInProcess(
      ['adr', 'new', '--title', 'Escaping', '--baseline', 'run', '--candidate', 'run', '--dir', 'adr'],
      { cwd: work },
    );
    expect(r.code, r.stderr).toBe(0);
    const file = readdirSync(join(work, 'adr')).find((f) => f.endsWith('.md'))!;
    const body = readFileSync(join(work, 'adr', file), 'utf8')
      .split('\n---\n')
      .slice(1)
      .join('\n---\n');
    expect(body).toContain(markdownCode(MODEL));
    expect(outsideCodeSpans(body)).not.toMatch(/<img|<\/script>|<b>/);
  });

  it('Markdown report: escaped as text', async () => {
    const r = await runCliInProcess(['report', 'run', '--format', 'markdown'], { cwd: work });
    expect(r.code, r.stderr).toBe(0);
    expect(outsideCodeSpans(r.stdout)).not.toMatch(/<img|<\/script>|<b>/);
  });

  it('HTML report: no element and no script end from the id', async () => {
    const r = await runCliInProcess(['report', 'run', '-o', 'report.html'], { cwd: work });
    expect(r.code, r.stderr).toBe(0);
    const html = readFileSync(join(work, 'report.html'), 'utf8');
    expect(html).not.toContain('<img src=x');
    expect(html).not.toContain('<b>"q"');
    // One closing script tag per opening one: the id did not close the data block.
    expect(html.match(/<\/script>/g)?.length).toBe(html.match(/<script[\s>]/g)?.length);
  });

  it('CSV report: the id opens as text, not a formula', async () => {
    const r = await runCliInProcess(['report', 'run', '--format', 'csv'], { cwd: work });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(/(^|,)=cmd/m);
    expect(r.stdout).toContain("'=cmd");
  });

  it('JUnit XML of a gate: well-formed text', async () => {
    const r = await runCliInProcess(['gate', '--from', 'run', 'p99(ttft)<100000', '--junit', 'junit.xml'], {
      cwd: work,
    });
    expect(r.code, r.stderr).toBe(0);
    const xml = readFileSync(join(work, 'junit.xml'), 'utf8');
    expect(xml).not.toMatch(/<img|<b>|<\/script>/);
    expect(xml).not.toMatch(/&(?!amp;|lt;|gt;|quot;|apos;|#\d+;)/);
  });
});
