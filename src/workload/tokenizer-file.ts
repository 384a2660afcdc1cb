/**
 * `--tokenizer`: an encoding name (o200k_base, cl100k_base, …) or a Hugging Face tokenizer:
 * its `tokenizer.json` (or the folder holding it), with `tokenizer_config.json` and the chat
 * template from the same folder (`chat_template` of tokenizer_config.json, else
 * `chat_template.jinja`), or the template of `--chat-template FILE`. Every read is bounded in
 * bytes and time; a missing, unreadable, oversized or foreign file is a usage error naming it.
 *
 * @module
 */

import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { GoodputError } from '../errors.js';
import { readTextFileBounded } from '../util/index.js';
import { probeChatTemplate } from './template-probe.js';
import { createTokenizer, TOKENIZER_NAMES, type Tokenizer, type TokenizerFile } from './tokenizer.js';

/** Largest tokenizer.json read (the largest models' are about 35 MB). */
export const MAX_TOKENIZER_JSON_BYTES = 64 * 1024 * 1024;
/** Largest tokenizer_config.json read (some list every added token). */
export const MAX_TOKENIZER_CONFIG_BYTES = 16 * 1024 * 1024;
/** Largest chat template read. */
export const MAX_CHAT_TEMPLATE_BYTES = 1024 * 1024;
const READ_TIMEOUT_MS = 30_000;

export interface TokenizerChoice {
  /** `--tokenizer`: an encoding name, a tokenizer.json, or its folder; undefined: o200k_base. */
  tokenizer?: string;
  /** `--chat-template FILE`: a Jinja template (or a JSON file with `chat_template`) that replaces the folder's. */
  chatTemplate?: string;
  /** The requests' `chat_template_kwargs` (from --extra-body): the server renders the template with them. */
  templateKwargs?: Record<string, unknown>;
  /** Relative paths are read from here. */
  cwd?: string;
}

const HINT = `give a Hugging Face tokenizer.json (or the model folder holding it), or one of ${TOKENIZER_NAMES.join(', ')}`;

function usage(message: string, hint: string): GoodputError {
  return new GoodputError('E_USAGE', message, hint);
}

async function readText(path: string, maxBytes: number, flag: string): Promise<string> {
  const read = await readTextFileBounded(path, { maxBytes, timeoutMs: READ_TIMEOUT_MS });
  if (!read.ok) {
    throw usage(
      `cannot read ${flag} ${path} (${read.problem})`,
      flag === '--chat-template' ? 'give a readable Jinja chat template file' : HINT,
    );
  }
  return read.text;
}

function parseObject(text: string, path: string, flag: string): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw usage(`${flag} ${path} is not JSON (${(e as Error).message})`, HINT);
  }
  if (!v || typeof v !== 'object' || Array.isArray(v))
    throw usage(`${flag} ${path} is not a JSON object`, HINT);
  return v as Record<string, unknown>;
}

async function isFile(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.isFile(),
    () => false,
  );
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** The template that counts chat prompts, and where it came from. */
async function findTemplate(
  folder: string,
  config: Record<string, unknown>,
  flagPath: string | undefined,
): Promise<{ text: string; source: string } | undefined> {
  const { chatTemplateOf } = await import('./hf-tokenizer.js');
  if (flagPath !== undefined) {
    const text = await readText(flagPath, MAX_CHAT_TEMPLATE_BYTES, '--chat-template');
    // A tokenizer_config.json given as the template: its chat_template.
    if (/^\s*\{\s*"/.test(text)) {
      const inner = chatTemplateOf(parseObject(text, flagPath, '--chat-template'));
      if (inner === undefined)
        throw usage(`--chat-template ${flagPath} has no chat_template`, 'give the Jinja template itself');
      return { text: inner, source: flagPath };
    }
    return { text, source: flagPath };
  }
  const own = chatTemplateOf(config);
  if (own !== undefined) return { text: own, source: join(folder, 'tokenizer_config.json') };
  const jinja = join(folder, 'chat_template.jinja');
  if (await isFile(jinja))
    return { text: await readText(jinja, MAX_CHAT_TEMPLATE_BYTES, '--tokenizer'), source: jinja };
  return undefined;
}

/**
 * The tokenizer that counts a run's prompts.
 *
 * @example
 * await resolveTokenizer({ tokenizer: './Llama-3.1-8B-Instruct' }); // its tokenizer.json and chat template
 * await resolveTokenizer({}); // o200k_base
 */
export async function resolveTokenizer(choice: TokenizerChoice): Promise<Tokenizer> {
  const spec = choice.tokenizer;
  if (spec === undefined || (TOKENIZER_NAMES as readonly string[]).includes(spec)) {
    if (choice.chatTemplate !== undefined) {
      throw usage(
        '--chat-template needs --tokenizer FILE',
        "a template is counted in the model's own tokens: give its tokenizer.json with --tokenizer",
      );
    }
    return createTokenizer(spec);
  }
  const cwd = choice.cwd ?? process.cwd();
  let path = resolve(cwd, spec);
  const st = await stat(path).catch((e: NodeJS.ErrnoException) => {
    throw usage(`cannot read --tokenizer ${spec} (${e.code ?? e.message})`, HINT);
  });
  if (st.isDirectory()) path = join(path, 'tokenizer.json');
  const file = await stat(path).catch(() => undefined);
  if (file && !file.isFile()) throw usage(`--tokenizer ${path} is not a regular file`, HINT);
  if (file && file.size > MAX_TOKENIZER_JSON_BYTES) {
    throw usage(`cannot read --tokenizer ${path} (larger than ${MAX_TOKENIZER_JSON_BYTES} bytes)`, HINT);
  }
  const text = await readText(path, MAX_TOKENIZER_JSON_BYTES, '--tokenizer');
  const tokenizerJson = parseObject(text, path, '--tokenizer');
  const model = tokenizerJson.model;
  if (!model || typeof model !== 'object' || !Array.isArray(tokenizerJson.added_tokens)) {
    throw usage(`--tokenizer ${path} is not a Hugging Face tokenizer.json (no model or added_tokens)`, HINT);
  }
  const folder = dirname(path);
  const configPath = join(folder, 'tokenizer_config.json');
  const config = (await isFile(configPath))
    ? parseObject(
        await readText(configPath, MAX_TOKENIZER_CONFIG_BYTES, '--tokenizer'),
        configPath,
        '--tokenizer',
      )
    : {};
  const template = await findTemplate(
    folder,
    config,
    choice.chatTemplate === undefined ? undefined : resolve(cwd, choice.chatTemplate),
  );
  // Hugging Face's tokenizers and Jinja load only for a tokenizer file (~8 MB otherwise).
  const { compileChatTemplate, createHfTokenizer } = await import('./hf-tokenizer.js');
  if (template) {
    compileChatTemplate(template.text, template.source);
    await probeChatTemplate(template.text, template.source, choice.templateKwargs ?? {});
  }
  const hash = sha256(text);
  const source: TokenizerFile = { path, sha256: hash };
  if (template) source.chatTemplate = { source: template.source, sha256: sha256(template.text) };
  const label =
    typeof config.name_or_path === 'string' && config.name_or_path !== ''
      ? config.name_or_path
      : basename(folder);
  return createHfTokenizer({
    tokenizerJson,
    config,
    ...(template ? { chatTemplate: template.text } : {}),
    ...(choice.templateKwargs ? { templateKwargs: choice.templateKwargs } : {}),
    name: `hf:${label}@${hash.slice(0, 12)}`,
    file: source,
  });
}
