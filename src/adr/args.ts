/**
 * Serving command lines as data: a shell-like tokenizer and the flags a token list sets
 * (`--name value`, `--name=value`, `--name` alone).
 *
 * @module
 */

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

/** Normalises "enable-x", "-x", "--x" to "--x" (long) and keeps a single-dash short flag. */
export function normaliseFlag(flag: string): string {
  if (flag.startsWith('--')) return flag;
  if (flag.startsWith('-') && flag.length === 2) return flag;
  return `--${flag.replace(/^-+/, '')}`;
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
