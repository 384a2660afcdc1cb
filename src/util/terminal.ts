/**
 * Text on its way to a terminal or a CI log, where control characters are obeyed: a server's
 * error body or model id (or a user's file) could set the window title, clear or overwrite a line
 * (`\r`, `ESC[2K`: a failing gate made to look passed), hide text, or reorder it with Unicode
 * bidirectional controls. Every such character is shown as an escape (`\x1b`, `\u0085`, `\u202e`) instead.
 *
 * Kept as they are: newline and tab, `\r\n` (CSV), a `\r` that starts a write (the progress
 * line redrawing itself), and the few sequences goodput itself writes: SGR reset, bold, dim, red
 * and yellow, and erase-to-end-of-line. A server can still make text bold or red, no more. A
 * line that starts with "::" (a GitHub Actions workflow command; goodput writes none) gets its
 * first colon shown as `\x3a`.
 *
 * @module
 */

/** Any character that may need showing as an escape: C0 but \t and \n, DEL, C1, bidi controls. */
const SUSPECT = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
/** goodput's own sequences and \r\n (kept), or one suspect character (escaped unless a leading \r). */
const TOKEN =
  /\x1b\[(?:[012]|3[13])?m|\x1b\[K|\r\n|[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** "::" at the start of a line (after spaces: the runner trims them). */
const WORKFLOW_COMMAND = /(^|\n[ \t]*)::/g;

/**
 * C0 as `\x1b` (easiest read; JSON.stringify never leaves one raw), the rest as `\u0085`: a
 * JSON escape of the same character, so --json output stays valid JSON that parses to the text.
 */
function shown(ch: string): string {
  const code = ch.charCodeAt(0);
  return code < 0x20
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * The text with every control character that goodput did not put there shown, not obeyed.
 *
 * @example
 * terminalSafe('bad \x1b]0;owned\x07 request'); // 'bad \\x1b]0;owned\\x07 request'
 */
export function terminalSafe(text: string): string {
  const safe = SUSPECT.test(text)
    ? text.replace(TOKEN, (m: string, offset: number) =>
        m.length > 1 || (m === '\r' && offset === 0) ? m : shown(m),
      )
    : text;
  // A line that starts with "::" is a workflow command to GitHub Actions (goodput writes none).
  return safe.includes('::') ? safe.replace(WORKFLOW_COMMAND, '$1\\x3a:') : safe;
}

/** A writable (stdout, stderr) whose text passes through {@link terminalSafe}; isTTY as the stream's. */
export function terminalSafeStream<S extends { write(chunk: string): unknown; isTTY?: boolean }>(
  stream: S,
): { write(chunk: string): unknown; isTTY?: boolean } {
  return {
    write: (chunk: string) => stream.write(typeof chunk === 'string' ? terminalSafe(chunk) : chunk),
    ...(stream.isTTY !== undefined ? { isTTY: stream.isTTY } : {}),
  };
}
