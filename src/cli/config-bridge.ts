/**
 * The seam between the CLI and src/config: config file loading and SLO text parsing,
 * normalised to the few fields a benchmark needs.
 *
 * @module
 */

import { readFile } from 'node:fs/promises';
import { GoodputError } from '../errors.js';
import type { Slo } from '../types.js';

/** A config file's settings, whichever shape it had. */
export interface FileConfig {
  baseUrl?: string;
  apiKey?: string;
  model?: string;
  slo?: Slo;
  timeoutMs?: number;
  maxRetries?: number;
}

/** Loads a settings.json- or gateway-shaped config file. */
export async function loadFileConfig(path: string): Promise<FileConfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    throw new GoodputError('E_CONFIG', `cannot read config file ${path}`, 'check the path given to --config');
  }
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new GoodputError(
      'E_CONFIG',
      `${path} is not valid JSON: ${(e as Error).message}`,
      'fix the JSON syntax',
    );
  }
  const out: FileConfig = {};
  const s = (v: unknown) => (typeof v === 'string' ? v : undefined);
  out.baseUrl = s(raw.base_url) ?? s(raw.baseUrl);
  out.apiKey = s(raw.api_key) ?? s(raw.apiKey);
  out.model = s(raw.model_id) ?? s(raw.model);
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined)) as FileConfig;
}

/** "ttft=500,tpot=100,e2el=5000" → Slo (milliseconds). */
export function parseSloText(text: string): Slo {
  const slo: Slo = {};
  for (const part of text.split(',')) {
    const [k, v] = part.split('=').map((x) => x.trim());
    const ms = Number(v);
    if (!k || !Number.isFinite(ms) || ms <= 0 || !['ttft', 'tpot', 'e2el'].includes(k)) {
      throw new GoodputError(
        'E_USAGE',
        `--slo: cannot read '${part}'`,
        'write e.g. --slo ttft=500,tpot=100,e2el=5000',
      );
    }
    slo[`${k}Ms` as keyof Slo] = ms;
  }
  return slo;
}
