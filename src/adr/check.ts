/**
 * `adr check` core: did the change since a git ref touch serving parameters without adding
 * an ADR? The decision is pure (evaluateChange); gitChanges runs `git diff --name-status`.
 *
 * Project config (`goodput.config.json` at the repository root):
 * `{ "servingParams": ["deploy/**\/*.yaml", "**\/vllm*.args"], "adrDir": "docs/adr" }`.
 *
 * @module
 */

import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, posix } from 'node:path';
import { promisify } from 'node:util';
import { z } from 'zod';
import { GoodputError } from '../errors.js';
import { readTextFileBounded } from '../util/index.js';
import { ADR_FILE_PATTERN } from './files.js';
import { globMatcher } from './glob.js';

const run = promisify(execFile);

export interface ChangedFile {
  /** git's status letter: A, M, D, R, C, T, U, or '?' for untracked. */
  status: string;
  path: string;
  /** Renames and copies: where it came from. */
  oldPath?: string;
}

/** Parses `git diff --name-status -z` output. */
export function parseNameStatus(z0: string): ChangedFile[] {
  const parts = z0.split('\0').filter((p) => p !== '');
  const out: ChangedFile[] = [];
  for (let i = 0; i < parts.length; ) {
    const status = parts[i++] as string;
    const letter = status[0] ?? '?';
    if (letter === 'R' || letter === 'C') {
      const oldPath = parts[i++] as string;
      out.push({ status: letter, oldPath, path: parts[i++] as string });
    } else {
      out.push({ status: letter, path: parts[i++] as string });
    }
  }
  return out;
}

async function git(cwd: string, args: string[]): Promise<string> {
  const { stdout } = await run('git', args, { cwd, maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}

/**
 * Files changed between `baseRef` and the working tree (committed or not), plus untracked
 * files, with paths relative to the repository root.
 */
export async function gitChanges(
  cwd: string,
  baseRef: string,
): Promise<{ root: string; changes: ChangedFile[] }> {
  let root: string;
  try {
    root = (await git(cwd, ['rev-parse', '--show-toplevel'])).trim();
  } catch {
    throw new GoodputError(
      'E_USAGE',
      `${cwd} is not inside a git repository`,
      'run goodput adr check inside the repository',
    );
  }
  try {
    await git(root, ['rev-parse', '--verify', '--quiet', `${baseRef}^{commit}`]);
  } catch {
    throw new GoodputError(
      'E_USAGE',
      `unknown git ref '${baseRef}'`,
      'pass a branch, tag or commit that exists locally, e.g. --base origin/main (fetch it first in CI)',
    );
  }
  const diff = await git(root, ['diff', '--name-status', '-z', '-M', baseRef, '--']);
  const untracked = await git(root, ['ls-files', '--others', '--exclude-standard', '-z']);
  const changes = parseNameStatus(diff);
  for (const path of untracked.split('\0').filter(Boolean)) changes.push({ status: '?', path });
  return { root, changes };
}

export interface CheckOutcome {
  /** Changed files that hold serving parameters. */
  servingFiles: string[];
  /** ADR files added by the change. */
  newAdrs: string[];
  passed: boolean;
}

/** Fails when a serving-parameter file changed and no ADR file was added under adrDir. */
export function evaluateChange(
  changes: readonly ChangedFile[],
  servingGlobs: readonly string[],
  adrDir: string,
): CheckOutcome {
  const isServing = globMatcher(servingGlobs);
  const dir = posix.normalize(adrDir.replaceAll('\\', '/')).replace(/^\.\/|\/$/g, '');
  const servingFiles = changes
    .filter((c) => isServing(c.path) || (c.oldPath !== undefined && isServing(c.oldPath)))
    .map((c) => c.path);
  const newAdrs = changes
    .filter((c) => c.status === 'A' || c.status === '?' || c.status === 'C')
    .map((c) => c.path)
    .filter((p) => posix.dirname(p) === dir && ADR_FILE_PATTERN.test(posix.basename(p)));
  return { servingFiles, newAdrs, passed: servingFiles.length === 0 || newAdrs.length > 0 };
}

export const PROJECT_CONFIG_FILE = 'goodput.config.json';

const ProjectConfigSchema = z.object({
  servingParams: z.array(z.string()).optional(),
  adrDir: z.string().optional(),
});
export type ProjectConfig = z.infer<typeof ProjectConfigSchema>;

/** Reads goodput.config.json from a directory; {} when it is not there. E_CONFIG naming the field when invalid. */
export async function readProjectConfig(dir: string): Promise<ProjectConfig> {
  const path = join(dir, PROJECT_CONFIG_FILE);
  if (!existsSync(path)) return {};
  const file = await readTextFileBounded(path);
  if (!file.ok) {
    throw new GoodputError(
      'E_CONFIG',
      `cannot read ${path} (${file.problem})`,
      `make ${PROJECT_CONFIG_FILE} a small JSON file`,
    );
  }
  let raw: unknown;
  try {
    raw = JSON.parse(file.text);
  } catch (e) {
    throw new GoodputError('E_CONFIG', `${path} is not valid JSON: ${(e as Error).message}`, 'fix the JSON');
  }
  const parsed = ProjectConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
      .join('; ');
    throw new GoodputError(
      'E_CONFIG',
      `${path}: ${problems}`,
      'write e.g. { "servingParams": ["deploy/**/*.yaml", "**/vllm*.args"], "adrDir": "docs/adr" }',
    );
  }
  return parsed.data;
}
