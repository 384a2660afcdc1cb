import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { outOfFilesCode, parseLimit, readOpenFilesLimit } from './open-files.js';

describe('the open-file limit', () => {
  it.each<[string | undefined, number | undefined]>([
    ['1024', 1024],
    ['unlimited', undefined],
    ['0', undefined],
    ['', undefined],
    [undefined, undefined],
    ['12abc', undefined],
  ])('parseLimit(%j) → %j', (text, limit) => {
    expect(parseLimit(text)).toBe(limit);
  });

  it.runIf(process.platform !== 'win32')(
    "is the shell's ulimit -n, read from /proc on Linux and from a shell elsewhere",
    () => {
      const shell = parseLimit(execFileSync('/bin/sh', ['-c', 'ulimit -n'], { encoding: 'utf8' }).trim());
      expect(readOpenFilesLimit()).toBe(shell);
      // the other Unix path (macOS), taken here on purpose: the same answer from a child shell
      expect(readOpenFilesLimit(process.platform === 'linux' ? 'darwin' : 'linux')).toBe(
        process.platform === 'linux' ? shell : undefined,
      );
      expect(readOpenFilesLimit('win32')).toBeUndefined();
    },
  );
});

describe('outOfFilesCode', () => {
  const err = (code: string, cause?: unknown) => Object.assign(new Error(code), { code, cause });
  it.each<[string, unknown, string | undefined]>([
    ['EMFILE', err('EMFILE'), 'EMFILE'],
    ['ENFILE', err('ENFILE'), 'ENFILE'],
    ["under undici's socket wrapper", err('UND_ERR_SOCKET', err('EMFILE')), 'EMFILE'],
    ['as the cause of an import error', new Error('import failed', { cause: err('EMFILE') }), 'EMFILE'],
    ['a full disk is not it', err('ENOSPC'), undefined],
    ['too deep to look', err('A', err('B', err('C', err('D', err('EMFILE'))))), undefined],
    ['not an error', 'EMFILE', undefined],
    ['nothing', undefined, undefined],
  ])('%s', (_name, e, code) => {
    expect(outOfFilesCode(e)).toBe(code);
  });
});
