import { describe, expect, it } from 'vitest';
import { makeSummary, statsOf } from '../../test/helpers/rules-fixtures.js';
import { GoodputError } from '../errors.js';
import { evaluateThresholds, gateSpecThresholds, shorthandThresholds } from './evaluate.js';
import { formatThreshold, parseThreshold } from './grammar.js';
import { escapeXml, renderGateLines, renderGateMarkdown, renderJunit } from './render.js';

describe('parseThreshold', () => {
  it.each([
    ['p99(ttft)<350', 'latency', 'p99', 'ttft', '<', 350],
    ['p50(tpot)<=40', 'latency', 'p50', 'tpot', '<=', 40],
    ['mean(e2el)<5000', 'latency', 'mean', 'e2el', '<', 5000],
    [' p99.9( itl ) <= 12.5 ms ', 'latency', 'p999', 'itl', '<=', 12.5],
    ['median(ttft)<2s', 'latency', 'p50', 'ttft', '<', 2000],
    ['P95(Queue_Wait)>=1e2', 'latency', 'p95', 'queueWait', '>=', 100],
    ['max(itl_per_token)<.5', 'latency', 'max', 'itlPerToken', '<', 0.5],
  ])('%s', (text, kind, stat, latency, op, limit) => {
    const t = parseThreshold(text);
    expect(t.subject.kind).toBe(kind);
    if (t.subject.kind === 'latency') {
      expect(t.subject.stat).toBe(stat);
      expect(t.subject.latency).toBe(latency);
    }
    expect(t.op).toBe(op);
    expect(t.limit).toBe(limit);
  });

  it.each([
    ['attainment>=0.95', 'attainment', '>=', 0.95],
    ['error_rate<0.01', 'error_rate', '<', 0.01],
    ['request_goodput>2', 'request_goodput', '>', 2],
    ['output_throughput>=1000', 'output_throughput', '>=', 1000],
    ['goodput_ratio >= 0.9', 'goodput_ratio', '>=', 0.9],
  ])('%s', (text, name, op, limit) => {
    const t = parseThreshold(text);
    expect(t.subject).toEqual({ kind: 'scalar', name });
    expect(t.op).toBe(op);
    expect(t.limit).toBe(limit);
  });

  it.each([
    ['p99(ttf)<350', 5, "unknown latency 'ttf'"],
    ['p98(ttft)<350', 1, "unknown statistic 'p98'"],
    ['p99(ttft<350', 9, "expected ')'"],
    ['p99(ttft)=350', 10, 'expected a comparison'],
    ['p99(ttft)<', 11, 'expected a number'],
    ['p99(ttft)<350 msec', 15, "unknown unit 'msec'"],
    ['attainment>=0.95ms', 17, 'only applies to latencies'],
    ['goodput>1', 1, "unknown name 'goodput'"],
    ['p99<350', 1, 'needs a latency in parentheses'],
    ['', 1, 'expected a statistic'],
    ['error_rate<0.01 and more', 17, "unexpected 'and more'"],
  ])('rejects %j at column %i', (text, column, problem) => {
    let error: unknown;
    try {
      parseThreshold(text);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(GoodputError);
    const g = error as GoodputError;
    expect(g.code).toBe('E_THRESHOLD');
    expect(g.exitCode).toBe(2);
    expect(g.message).toContain(`column ${column}:`);
    expect(g.message).toContain(problem);
    expect(g.hint).toContain('p99(ttft)<350');
    // The caret sits under the column named.
    const lines = g.message.split('\n');
    expect(lines[2]?.indexOf('^')).toBe(column - 1 + 2);
  });

  it.each([
    ['p99(ttft)\n< 350', 10, '\\n'],
    ['p99(ttft)<350\n# groups: []', 14, '\\n'],
    ['p99(ttft)\r<350', 10, '\\r'],
    ['p99(ttft)<350\u2028x', 14, '\\u2028'],
    ['p99(ttft)\u0000<350', 10, '\\u0000'],
  ])('refuses %j: a threshold is one line (column %i)', (text, column, shown) => {
    let error: unknown;
    try {
      parseThreshold(text);
    } catch (e) {
      error = e;
    }
    const g = error as GoodputError;
    expect(g.code).toBe('E_THRESHOLD');
    expect(g.message).toContain(`column ${column}: a line break or control character (${shown})`);
    // The message itself is one line: nothing of the threshold's text breaks it.
    expect(g.message).not.toMatch(/[\n\r\u2028]/);
    expect(g.hint).toContain('one line');
  });

  it('formats canonically and round-trips', () => {
    for (const text of ['p99(ttft)<350', 'mean(e2el)>=2s', 'attainment>0.5']) {
      const t = parseThreshold(text);
      const again = parseThreshold(formatThreshold(t));
      expect(again.subject).toEqual(t.subject);
      expect(again.op).toBe(t.op);
      expect(again.limit).toBe(t.limit);
    }
  });
});

describe('evaluateThresholds', () => {
  const ttft = [100, 120, 130, 150, 200, 220, 250, 300, 320, 400];
  const summary = makeSummary({
    latency: { ttft, tpot: [20, 22, 25, 30] },
    attempted: 200,
    failed: 3,
    goodRequests: 180,
    durationS: 20,
    tokenGoodputRatio: 0.97,
  });
  const p99 = statsOf(ttft).p99;

  it.each([
    [`p99(ttft)<${p99}`, false],
    [`p99(ttft)<=${p99}`, true],
    [`p99(ttft)>${p99 - 1}`, true],
    ['p50(ttft)<=210', true],
    ['max(ttft)<400', false],
    ['mean(tpot)<=24.25', true],
    ['attainment>=0.9', true],
    ['attainment>0.9', false],
    ['error_rate<0.015', false],
    ['error_rate<=0.015', true],
    ['request_goodput>=9', true],
    ['goodput_ratio>=0.98', false],
    ['completed>=197', true],
  ])('%s → %s', (text, passed) => {
    const result = evaluateThresholds([parseThreshold(text)], summary);
    expect(result.outcomes[0]?.passed).toBe(passed);
    expect(result.passed).toBe(passed);
  });

  it('fails a threshold the run did not measure', () => {
    const result = evaluateThresholds(
      [parseThreshold('kv_fragmentation<0.5'), parseThreshold('p99(itl)<5')],
      summary,
    );
    expect(result.outcomes.map((o) => [o.passed, o.value])).toEqual([
      [false, undefined],
      [false, undefined],
    ]);
  });

  it('builds thresholds from shorthand flags and ADR gate blocks', () => {
    const short = shorthandThresholds({
      maxTtftP99Ms: 350,
      minGoodputRatio: 0.95,
      maxErrorRate: 0.01,
      other: 1,
    });
    expect(short.map(formatThreshold)).toEqual([
      'p99(ttft) <= 350 ms',
      'goodput_ratio >= 0.95',
      'error_rate <= 0.01',
    ]);
    const fromSpec = gateSpecThresholds({
      ttft_p99_ms: 350,
      tpot_p99_ms: 35,
      goodput_min: 0.95,
      thresholds: ['p50(ttft)<100'],
    });
    expect(fromSpec.map(formatThreshold)).toEqual([
      'p99(ttft) <= 350 ms',
      'p99(tpot) <= 35 ms',
      'goodput_ratio >= 0.95',
      'p50(ttft) < 100 ms',
    ]);
  });
});

describe('gate output', () => {
  const summary = makeSummary({ latency: { ttft: [100, 200, 300] } });
  const result = evaluateThresholds(
    [parseThreshold('p99(ttft)<250'), parseThreshold('error_rate<0.01')],
    summary,
  );

  it('prints one PASS or FAIL line per threshold with value and limit', () => {
    const lines = renderGateLines(result).trim().split('\n');
    expect(lines[0]).toMatch(/^\[GATE FAIL\] p99\(ttft\): value 298 ms, limit < 250 ms$/);
    expect(lines[1]).toBe('[GATE PASS] error_rate: value 0, limit < 0.01');
    expect(lines[2]).toContain('1 of 2');
  });

  it('writes JUnit XML with one escaped test case per threshold', () => {
    const xml = renderJunit(result, { properties: { dir: 'a&b<"c">' } });
    expect(xml.match(/<testcase /g)).toHaveLength(2);
    expect(xml.match(/<failure /g)).toHaveLength(1);
    expect(xml).toContain('tests="2" failures="1"');
    expect(xml).toContain('name="p99(ttft) &lt; 250 ms"');
    expect(xml).toContain('value="a&amp;b&lt;&quot;c&quot;&gt;"');
    // Nothing unescaped between quotes.
    for (const attr of xml.matchAll(/="([^"]*)"/g))
      expect(attr[1]).not.toMatch(/[<>]|&(?!amp;|lt;|gt;|quot;|apos;)/);
  });

  it('drops characters XML cannot carry', () => {
    expect(escapeXml('a\u0000b\u001bc')).toBe('abc');
  });

  it('renders a Markdown table for the job summary', () => {
    const md = renderGateMarkdown(result, 'run r-1');
    expect(md).toContain('### goodput gate: FAIL');
    expect(md).toContain('| p99(ttft) | 298 ms | < 250 ms | **FAIL** |');
    expect(md).toContain('| error_rate | 0 | < 0.01 | pass |');
  });
});
