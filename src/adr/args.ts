/**
 * Serving command lines as data: a shell-like tokenizer and the flags a token list sets
 * (`--name value`, `--name=value`, `--name` alone).
 *
 * @module
 */

import { canonicalFlag, type EngineId } from '../engines/index.js';

/**
 * Splits a command line into words like a POSIX shell would for plain cases: single and
 * double quotes, backslash escapes, `\`-newline continuations and `#` comments.
 */
export function tokenizeCommandLine(text: string): string[] {
  const words: string[] = [];
  let current = '';
  let inWord = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (quote) {
      if (ch === quote) quote = undefined;
      else if (
        ch === '\\' &&
        quote === '"' &&
        i + 1 < text.length &&
        '"\\$`'.includes(text[i + 1] as string)
      ) {
        current += text[++i];
      } else current += ch;
      continue;
    }
    if (ch === '\\') {
      const next = text[i + 1];
      if (next === '\n') {
        i++;
        continue;
      }
      if (next === '\r' && text[i + 2] === '\n') {
        i += 2;
        continue;
      }
      if (next !== undefined) {
        current += next;
        inWord = true;
        i++;
      }
      continue;
    }
    if (ch === '"' || ch === "'") {
      quote = ch;
      inWord = true;
      continue;
    }
    if (ch === '#' && !inWord) {
      while (i < text.length && text[i] !== '\n') i++;
      continue;
    }
    if (/\s/.test(ch)) {
      if (inWord) words.push(current);
      current = '';
      inWord = false;
      continue;
    }
    current += ch;
    inWord = true;
  }
  if (inWord) words.push(current);
  return words;
}

/** What a token list says about one flag: its last value (`true` for a bare flag). */
export type FlagValues = Map<string, string | true>;

/**
 * Normalises "enable-x" to "--enable-x" and keeps a flag written with its dashes as it is:
 * "--x", "-x", and single-dash short flags of several letters (llama.cpp's "-np", "-ub").
 */
export function normaliseFlag(flag: string): string {
  if (flag.startsWith('-')) return flag;
  return `--${flag}`;
}

/**
 * The tokens with every flag in its engine's long spelling (`-np 4` → `--parallel 4`,
 * `--max_num_seqs=8` → `--max-num-seqs=8`, engines/flags.ts), so that flagsOf keeps the last
 * occurrence whatever spelling each used.
 */
export function canonicalTokens(tokens: readonly string[], engine?: EngineId): string[] {
  return tokens.map((t) => {
    if (!/^--?[A-Za-z]/.test(t)) return t;
    const eq = t.indexOf('=');
    return eq > 0 ? `${canonicalFlag(t.slice(0, eq), engine)}${t.slice(eq)}` : canonicalFlag(t, engine);
  });
}

/**
 * The flags a token list sets. `--name=value` and `--name value` (when the next token is not
 * itself a flag) give a value; a bare `--name` gives `true`. A later occurrence wins, as it
 * does for argparse. Words that are not flags or values (the program, `serve`, the model) are skipped.
 */
export function flagsOf(tokens: readonly string[]): FlagValues {
  const flags: FlagValues = new Map();
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i] as string;
    if (!/^--?[A-Za-z]/.test(t)) continue;
    const eq = t.indexOf('=');
    if (eq > 0) {
      flags.set(t.slice(0, eq), t.slice(eq + 1));
      continue;
    }
    const next = tokens[i + 1];
    if (next !== undefined && !/^--?[A-Za-z]/.test(next)) {
      flags.set(t, next);
      i++;
    } else {
      flags.set(t, true);
    }
  }
  return flags;
}
