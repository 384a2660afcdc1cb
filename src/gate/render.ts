/**
 * Gate output: `[GATE PASS]` / `[GATE FAIL]` lines, JUnit XML (one test case per threshold)
 * and a Markdown summary for `$GITHUB_STEP_SUMMARY`. Renderers return strings.
 *
 * @module
 */

import { markdownText } from '../util/index.js';
import type { GateResult, ThresholdOutcome } from './evaluate.js';
import { formatThreshold, subjectText } from './grammar.js';

function formatNumber(v: number): string {
  if (Number.isInteger(v)) return String(v);
  if (Math.abs(v) >= 100) return v.toFixed(1);
  return Number(v.toPrecision(4)).toString();
}

/** "212.4 ms", "0.9512", or "not measured". */
export function formatOutcomeValue(o: ThresholdOutcome): string {
  if (o.value === undefined) return 'not measured';
  return `${formatNumber(o.value)}${o.threshold.subject.kind === 'latency' ? ' ms' : ''}`;
}

/** "<= 350 ms" */
export function formatLimit(o: ThresholdOutcome): string {
  return `${o.threshold.op} ${formatNumber(o.threshold.limit)}${o.threshold.subject.kind === 'latency' ? ' ms' : ''}`;
}

/** The outcomes as `gate --json` prints them (the same shape whatever the run's source). */
export function gateOutcomesJson(result: GateResult) {
  return result.outcomes.map((x) => ({
    threshold: formatThreshold(x.threshold),
    value: x.value ?? null,
    op: x.threshold.op,
    limit: x.threshold.limit,
    passed: x.passed,
  }));
}

/** One line per threshold: `[GATE FAIL] p99(ttft): value 412.3 ms, limit <= 350 ms`. */
export function renderGateLines(result: GateResult): string {
  const lines = result.outcomes.map(
    (o) =>
      `[GATE ${o.passed ? 'PASS' : 'FAIL'}] ${subjectText(o.threshold)}: value ${formatOutcomeValue(o)}, limit ${formatLimit(o)}`,
  );
  const failed = result.outcomes.filter((o) => !o.passed).length;
  lines.push(
    result.passed
      ? `gate passed: ${result.outcomes.length} threshold(s) hold`
      : `gate failed: ${failed} of ${result.outcomes.length} threshold(s) breached`,
  );
  return `${lines.join('\n')}\n`;
}

/** Escapes text for an XML attribute or text node, dropping characters XML cannot hold. */
export function escapeXml(text: string): string {
  return text
    .replace(/[^\x09\x0A\x0D\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&apos;');
}

export interface JunitOptions {
  /** Suite name (default "goodput gate"). */
  suite?: string;
  /** ISO timestamp of the run. */
  timestamp?: string;
  /** Extra properties, e.g. runId and result directory. */
  properties?: Record<string, string>;
}

/** JUnit XML: one testsuite, one testcase per threshold, a failure element for each breach. */
export function renderJunit(result: GateResult, options: JunitOptions = {}): string {
  const suite = escapeXml(options.suite ?? 'goodput gate');
  const tests = result.outcomes.length;
  const failures = result.outcomes.filter((o) => !o.passed).length;
  const stamp = options.timestamp ? ` timestamp="${escapeXml(options.timestamp)}"` : '';
  const out = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${suite}" tests="${tests}" failures="${failures}">`,
    `  <testsuite name="${suite}" tests="${tests}" failures="${failures}" errors="0" skipped="0"${stamp}>`,
  ];
  const props = Object.entries(options.properties ?? {});
  if (props.length > 0) {
    out.push('    <properties>');
    for (const [k, v] of props) out.push(`      <property name="${escapeXml(k)}" value="${escapeXml(v)}"/>`);
    out.push('    </properties>');
  }
  for (const o of result.outcomes) {
    const name = escapeXml(formatThreshold(o.threshold));
    if (o.passed) {
      out.push(`    <testcase classname="goodput.gate" name="${name}"/>`);
      continue;
    }
    const message = escapeXml(`value ${formatOutcomeValue(o)} breaches limit ${formatLimit(o)}`);
    out.push(`    <testcase classname="goodput.gate" name="${name}">`);
    out.push(`      <failure type="threshold" message="${message}">${message}</failure>`);
    out.push('    </testcase>');
  }
  out.push('  </testsuite>', '</testsuites>');
  return `${out.join('\n')}\n`;
}

/** Markdown for a CI job summary: a verdict heading and a table of thresholds. */
export function renderGateMarkdown(result: GateResult, context?: string): string {
  const out = [`### goodput gate: ${result.passed ? 'PASS ✅' : 'FAIL ❌'}`, ''];
  if (context) out.push(markdownText(context), '');
  out.push('| Threshold | Value | Limit | Result |', '| --- | ---: | ---: | --- |');
  for (const o of result.outcomes) {
    const cells = [
      subjectText(o.threshold),
      formatOutcomeValue(o),
      formatLimit(o),
      o.passed ? 'pass' : '**FAIL**',
    ];
    // Our own words (thresholds, values): only pipes would break the table.
    out.push(`| ${cells.map((c) => c.replaceAll('|', '\\|')).join(' | ')} |`);
  }
  return `${out.join('\n')}\n\n`;
}
