/**
 * A small glob matcher for repository paths (no dependency): `**` crosses directories,
 * `*` and `?` stay within one path segment, `[abc]` / `[!abc]` are character classes and
 * `{a,b}` are alternatives. Paths use `/`; a pattern matches the whole path.
 *
 * @module
 */

function escapeRegex(ch: string): string {
  return /[\\^$.*+?()[\]{}|/]/.test(ch) ? `\\${ch}` : ch;
}

/** Compiles a glob into an anchored RegExp. */
export function globToRegExp(glob: string): RegExp {
  let out = '';
  let inBraces = 0;
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i] as string;
    if (ch === '*') {
      if (glob[i + 1] === '*') {
        const atStart = i === 0 || glob[i - 1] === '/';
        const next = glob[i + 2];
        if (atStart && next === '/') {
          out += '(?:[^/]*/)*'; // "**/": zero or more whole directories
          i += 2;
          continue;
        }
        if (atStart && next === undefined) {
          out += '.*'; // trailing "**": everything below
          i += 1;
          continue;
        }
        out += '[^/]*'; // "**" inside a segment acts as "*"
        i += 1;
        continue;
      }
      out += '[^/]*';
    } else if (ch === '?') {
      out += '[^/]';
    } else if (ch === '[') {
      const close = glob.indexOf(']', i + 2);
      if (close < 0) {
        out += '\\[';
        continue;
      }
      let body = glob.slice(i + 1, close);
      if (body.startsWith('!')) body = `^${body.slice(1)}`;
      out += `[${body.replaceAll('\\', '\\\\')}]`;
      i = close;
    } else if (ch === '{') {
      inBraces++;
      out += '(?:';
    } else if (ch === '}' && inBraces > 0) {
      inBraces--;
      out += ')';
    } else if (ch === ',' && inBraces > 0) {
      out += '|';
    } else {
      out += escapeRegex(ch);
    }
  }
  return new RegExp(`^${out}$`);
}

/** A predicate that is true when a path matches any of the globs. */
export function globMatcher(globs: readonly string[]): (path: string) => boolean {
  const res = globs.map(globToRegExp);
  return (path) => {
    const p = path.replaceAll('\\', '/').replace(/^\.\//, '');
    return res.some((re) => re.test(p));
  };
}
