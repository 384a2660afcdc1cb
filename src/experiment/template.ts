/**
 * Serve command templates: a string split into argv as a shell would split words (quotes and
 * backslashes, no shell: no pipes, redirections, variables or globbing), and `{name}`
 * placeholders replaced per argv element, so a value never splits into two arguments.
 *
 * @module
 */

import { GoodputError } from '../errors.js';
import type { ServeParamValue } from '../types.js';

/** Characters that would mean something to a shell: refused unquoted, since none runs. */
const SHELL_OPERATORS = new Set(['|', '&', ';', '<', '>', '(', ')', '`', '$']);

/**
 * Splits a command line into words: whitespace separates, '…' keeps everything literally,
 * "…" keeps everything but \" and \\, a backslash outside quotes escapes the next character.
 * Throws E_CONFIG on an unclosed quote or an unquoted shell operator (`field` names the plan field).
 *
 * @example
 * splitCommand(`vllm serve "my model" --port {port}`); // ['vllm', 'serve', 'my model', '--port', '{port}']
 */
export function splitCommand(text: string, field = 'serve.command'): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) throw unclosed(field, "'");
      word += text.slice(i + 1, end);
      inWord = true;
      i = end;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < text.length && text[j] !== '"'; j++) {
        if (text[j] === '\\' && (text[j + 1] === '"' || text[j + 1] === '\\')) j++;
        word += text[j];
      }
      if (j >= text.length) throw unclosed(field, '"');
      inWord = true;
      i = j;
    } else if (c === '\\' && i + 1 < text.length) {
      word += text[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else if (SHELL_OPERATORS.has(c)) {
      throw new GoodputError(
        'E_CONFIG',
        `${field}: '${c}' is a shell operator, and no shell runs the command`,
        `quote it if it is part of an argument, or run a shell yourself: serve: ["sh", "-c", "…"]`,
      );
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  if (words.length === 0)
    throw new GoodputError(
      'E_CONFIG',
      `${field}: the command is empty`,
      'e.g. serve: "vllm serve MODEL --port {port}"',
    );
  return words;
}

function unclosed(field: string, quote: string): GoodputError {
  return new GoodputError('E_CONFIG', `${field}: a ${quote} quote is not closed`, `close the ${quote} quote`);
}

/** `{name}` placeholders of a template (`{{` and `}}` stand for literal braces). */
export function placeholders(template: string): string[] {
  const out: string[] = [];
  for (const m of template.replace(/\{\{|\}\}/g, '').matchAll(/\{([A-Za-z0-9_.-]+)\}/g)) out.push(m[1]!);
  return out;
}

/** Replaces each `{name}` with its value; throws E_CONFIG naming a placeholder with no value. */
export function substitute(template: string, values: Record<string, ServeParamValue>, field: string): string {
  return template.replace(/\{\{|\}\}|\{([A-Za-z0-9_.-]+)\}/g, (whole, name: string | undefined) => {
    if (whole === '{{') return '{';
    if (whole === '}}') return '}';
    const v = values[name!];
    if (v === undefined) {
      throw new GoodputError(
        'E_CONFIG',
        `${field}: {${name}} has no value`,
        `give the configuration a parameter '${name}' (params: or grid:), or write {{${name}}} for literal braces; {port} is the port goodput picks`,
      );
    }
    return String(v);
  });
}
