/**
 * ADR files on disk: listing a directory, reading, and finding the latest accepted record.
 *
 * @module
 */

import { existsSync, statSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { GoodputError } from '../errors.js';
import { readTextFileBounded } from '../util/index.js';
import { type AdrDocument, parseAdr } from './document.js';

/** The default ADR directory, relative to the working directory. */
export const DEFAULT_ADR_DIR = 'docs/adr';

/** A file name that is an ADR: ADR-YYYYMMDD-NNN[-slug].md */
export const ADR_FILE_PATTERN = /^ADR-\d{8}-\d{3}(-[^/]*)?\.md$/;

/** ADR file names in a directory, sorted by id (oldest first); [] when the directory does not exist. */
export async function listAdrFiles(dir: string): Promise<string[]> {
  if (!existsSync(dir)) return [];
  if (!statSync(dir).isDirectory()) {
    throw new GoodputError(
      'E_USAGE',
      `the ADR directory ${dir} is a file, not a folder`,
      'pass --dir a folder (docs/adr by default)',
    );
  }
  const names = await readdir(dir);
  return names.filter((n) => ADR_FILE_PATTERN.test(n)).sort();
}

/** Reads a file's text (bounded: ADRs and serving configurations are small), or throws E_USAGE naming it. */
export async function readTextFile(path: string, what: string): Promise<string> {
  const file = await readTextFileBounded(path);
  if (!file.ok) {
    throw new GoodputError(
      'E_USAGE',
      `cannot read ${what} ${path}: ${file.problem}`,
      `check the path of the ${what}`,
    );
  }
  return file.text;
}

/** Reads and parses one ADR (E_ADR when it does not parse). */
export async function readAdr(path: string): Promise<AdrDocument> {
  return parseAdr(await readTextFile(path, 'ADR'), path);
}

/**
 * The latest accepted ADR with at least one rule in a directory (ids sort by date and number).
 * ADRs that do not parse are skipped here; `adr lint` reports them.
 */
export async function latestAcceptedAdr(dir: string): Promise<AdrDocument | undefined> {
  const names = await listAdrFiles(dir);
  for (const name of [...names].reverse()) {
    try {
      const doc = await readAdr(join(dir, name));
      if (doc.frontMatter.status === 'accepted' && (doc.frontMatter.rules?.length ?? 0) > 0) return doc;
    } catch {
      // not parseable: lint's business
    }
  }
  return undefined;
}
