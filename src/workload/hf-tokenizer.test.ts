/**
 * A model's own tokenizer (--tokenizer FILE): synthetic prompts have exactly the requested
 * length in it, chat template included, checked against an oracle that renders the template
 * and encodes with the libraries directly (not through goodput's code).
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Template } from '@huggingface/jinja';
import { Tokenizer as HfTokenizer } from '@huggingface/tokenizers';
import { afterAll, describe, expect, test } from 'vitest';
import { CHATML_TEMPLATE, writeTokenizerFolder } from '../../test/helpers/tokenizer-fixture.js';
import { GoodputError } from '../errors.js';
import type { ChatMessage, WorkItem, WorkloadSpec } from '../types.js';
import { resolveTokenizer } from './tokenizer-file.js';
import { createWorkload } from './workload.js';

const dir = mkdtempSync(join(tmpdir(), 'goodput-hf-tok-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const bpePath = writeTokenizerFolder(dir, 'tiny-chatml');
const wordPath = writeTokenizerFolder(dir, 'tiny-words', 'wordlevel');

/** The server's count: the libraries used directly, as vLLM's chat and completions endpoints count. */
function oracle(path: string, template: string | undefined, kwargs: Record<string, unknown> = {}) {
  const json = JSON.parse(readFileSync(path, 'utf8'));
  const config = JSON.parse(readFileSync(join(dirname(path), 'tokenizer_config.json'), 'utf8'));
  const hf = new HfTokenizer(json, config);
  const tpl = template === undefined ? undefined : new Template(template);
  return (item: WorkItem): number => {
    if (item.prompt !== undefined) return hf.encode(item.prompt).ids.length;
    const messages = item.messages as ChatMessage[];
    const text = tpl
      ? tpl.render({
          messages,
          add_generation_prompt: true,
          bos_token: config.bos_token,
          eos_token: config.eos_token,
          ...kwargs,
        })
      : messages.map((m) => m.content).join('');
    return hf.encode(text, { add_special_tokens: false }).ids.length;
  };
}

function spec(over: Partial<WorkloadSpec>): WorkloadSpec {
  return { kind: 'synthetic', api: 'chat', promptTokens: 64, maxTokens: 8, tokenizer: 'x', ...over };
}

describe('synthetic prompts in a model tokenizer: exact, chat template included', () => {
  const cases: Array<[string, Partial<WorkloadSpec>]> = [
    ['chat', { api: 'chat' }],
    ['chat + system prompt', { api: 'chat', systemPromptTokens: 37 }],
    ['chat + length range', { api: 'chat', promptTokensRange: 0.3 }],
    ['completions (BOS added)', { api: 'completions', systemPromptTokens: 5 }],
  ];
  test.each(cases)('%s: every request counts --system-prompt-tokens + the drawn length', async (_n, over) => {
    const tok = await resolveTokenizer({ tokenizer: bpePath });
    const count = oracle(bpePath, CHATML_TEMPLATE);
    for (const n of [40, 64, 301, 1000]) {
      const wl = createWorkload(spec({ ...over, promptTokens: n }), {
        seed: n,
        warmup: 0,
        requests: 30,
        tokenizer: tok,
      });
      for (let i = 0; i < 30; i++) {
        const item = wl.item(i);
        expect(count(item), `${n} tokens, item ${i}`).toBe(item.promptTokens);
        const drawn = item.promptTokens - (over.systemPromptTokens ?? 0);
        if (over.promptTokensRange === undefined) expect(drawn).toBe(n);
        else expect(Math.abs(drawn - n)).toBeLessThanOrEqual(n * over.promptTokensRange);
      }
    }
  });

  test('the template costs tokens: the user text is shorter than --prompt-tokens by exactly that much', async () => {
    const tok = await resolveTokenizer({ tokenizer: bpePath });
    const item = createWorkload(spec({ promptTokens: 100 }), { seed: 1, warmup: 0, tokenizer: tok }).item(0);
    const user = item.messages![0]!.content;
    // <s> <|im_start|> u s e r \n … <|im_end|> \n <|im_start|> a s s i s t a n t \n: 20 tokens
    expect(tok.count(user)).toBe(100 - 20);
    expect(oracle(bpePath, CHATML_TEMPLATE)(item)).toBe(100);
  });

  test('chat_template_kwargs (from --extra-body) are rendered as the server renders them', async () => {
    const kwargs = { enable_thinking: false };
    const tok = await resolveTokenizer({ tokenizer: bpePath, templateKwargs: kwargs });
    const count = oracle(bpePath, CHATML_TEMPLATE, kwargs);
    const wl = createWorkload(spec({ promptTokens: 80 }), { seed: 3, warmup: 0, tokenizer: tok });
    for (let i = 0; i < 10; i++) expect(count(wl.item(i))).toBe(80);
    // Without the kwargs the same prompts would count differently: the check can fail.
    expect(oracle(bpePath, CHATML_TEMPLATE)(wl.item(0))).not.toBe(80);
  });

  test('a template that changes some words: those words are left out, every prompt still exact', async () => {
    // The template rewrites every word starting with b: those count differently in it.
    const template = CHATML_TEMPLATE.replace(
      "{{ m['content'] }}",
      "{{ m['content'] | replace(' b', ' qq b') }}",
    );
    const tplFile = join(dir, 'rewrite.jinja');
    writeFileSync(tplFile, template);
    const tok = await resolveTokenizer({ tokenizer: bpePath, chatTemplate: tplFile });
    const count = oracle(bpePath, template);
    const wl = createWorkload(spec({ promptTokens: 120 }), { seed: 5, warmup: 0, tokenizer: tok });
    for (let i = 0; i < 40; i++) {
      const item = wl.item(i);
      expect(count(item)).toBe(120);
      expect(item.messages![0]!.content).not.toMatch(/ b/);
    }
  });

  test('prompts stay unique per request', async () => {
    const tok = await resolveTokenizer({ tokenizer: bpePath });
    const wl = createWorkload(spec({ promptTokens: 30 }), { seed: 9, warmup: 0, tokenizer: tok });
    const texts = new Set(Array.from({ length: 500 }, (_, i) => wl.item(i).messages![0]!.content));
    expect(texts.size).toBe(500);
  });

  test('a WordLevel vocabulary without space markers, no chat template: exact contents', async () => {
    const tok = await resolveTokenizer({ tokenizer: wordPath });
    const count = oracle(wordPath, undefined);
    for (const api of ['chat', 'completions'] as const) {
      const wl = createWorkload(spec({ api, promptTokens: 50, systemPromptTokens: 7 }), {
        seed: 2,
        warmup: 0,
        tokenizer: tok,
      });
      for (let i = 0; i < 20; i++) expect(count(wl.item(i))).toBe(57);
    }
  });

  test('datasets are counted with the template too', async () => {
    const tok = await resolveTokenizer({ tokenizer: bpePath });
    const entries = [{ messages: [{ role: 'user' as const, content: 'hello there, general kenobi' }] }];
    const wl = createWorkload(spec({ kind: 'dataset', promptTokens: undefined }), {
      seed: 1,
      warmup: 0,
      tokenizer: tok,
      dataset: entries,
    });
    const item = wl.item(0);
    expect(item.promptTokens).toBe(oracle(bpePath, CHATML_TEMPLATE)(item));
  });

  test('--prompt-tokens shorter than the template itself is a usage error naming the minimum', async () => {
    const tok = await resolveTokenizer({ tokenizer: bpePath });
    const err = (() => {
      try {
        createWorkload(spec({ promptTokens: 10 }), { seed: 1, warmup: 0, tokenizer: tok });
      } catch (e) {
        return e as GoodputError;
      }
    })();
    expect(err).toBeInstanceOf(GoodputError);
    expect(err!.code).toBe('E_USAGE');
    expect(err!.hint).toContain('pass at least 21');
  });
});

describe('resolveTokenizer: which tokenizer, recorded', () => {
  test('name and file: the sha256 of tokenizer.json and of the template, from its folder too', async () => {
    const byFolder = await resolveTokenizer({ tokenizer: dirname(bpePath) });
    const sha = createHash('sha256').update(readFileSync(bpePath)).digest('hex');
    expect(byFolder.name).toBe(`hf:tiny-chatml@${sha.slice(0, 12)}`);
    expect(byFolder.file).toEqual({
      path: bpePath,
      sha256: sha,
      chatTemplate: {
        source: join(dirname(bpePath), 'tokenizer_config.json'),
        sha256: createHash('sha256').update(CHATML_TEMPLATE).digest('hex'),
      },
    });
    const wl = createWorkload(spec({}), { seed: 1, warmup: 0, tokenizer: byFolder });
    expect(wl.spec.tokenizer).toBe(byFolder.name);
    expect(wl.spec.tokenizerFile?.sha256).toBe(sha);
  });

  test('--chat-template replaces the folder template; chat_template.jinja is found when the config has none', async () => {
    const plainTemplate = '{% for m in messages %}{{ m.content }}{% endfor %}';
    const tplFile = join(dir, 'plain.jinja');
    writeFileSync(tplFile, plainTemplate);
    const tok = await resolveTokenizer({ tokenizer: bpePath, chatTemplate: tplFile });
    expect(tok.file?.chatTemplate?.source).toBe(tplFile);
    const wl = createWorkload(spec({ promptTokens: 40 }), { seed: 1, warmup: 0, tokenizer: tok });
    expect(oracle(bpePath, plainTemplate)(wl.item(0))).toBe(40);
    expect(wl.item(0).messages![0]!.content).not.toBe(''); // the plain template costs nothing
    const jinjaDir = dirname(writeTokenizerFolder(dir, 'jinja-file', 'bpe', { chatTemplate: null }));
    writeFileSync(join(jinjaDir, 'chat_template.jinja'), CHATML_TEMPLATE);
    const found = await resolveTokenizer({ tokenizer: jinjaDir });
    expect(found.file?.chatTemplate?.source).toBe(join(jinjaDir, 'chat_template.jinja'));
    // A tokenizer_config.json given as --chat-template: its chat_template.
    const viaConfig = await resolveTokenizer({
      tokenizer: wordPath,
      chatTemplate: join(dirname(bpePath), 'tokenizer_config.json'),
    });
    expect(viaConfig.file?.chatTemplate?.sha256).toBe(found.file?.chatTemplate?.sha256);
  });

  test('default and encoding names are the gpt-tokenizer encodings', async () => {
    expect((await resolveTokenizer({})).name).toBe('o200k_base');
    expect((await resolveTokenizer({ tokenizer: 'cl100k_base' })).name).toBe('cl100k_base');
    expect((await resolveTokenizer({})).file).toBeUndefined();
  });

  const bad: Array<[string, () => Promise<unknown>, RegExp]> = [
    [
      'missing file',
      () => resolveTokenizer({ tokenizer: join(dir, 'nope.json') }),
      /cannot read --tokenizer .*ENOENT/,
    ],
    [
      'not JSON',
      () => {
        writeFileSync(join(dir, 'text.json'), 'hello');
        return resolveTokenizer({ tokenizer: join(dir, 'text.json') });
      },
      /is not JSON/,
    ],
    [
      'JSON but no tokenizer',
      () => {
        writeFileSync(join(dir, 'other.json'), '{"prompt": "x"}');
        return resolveTokenizer({ tokenizer: join(dir, 'other.json') });
      },
      /is not a Hugging Face tokenizer.json/,
    ],
    ['endless file', () => resolveTokenizer({ tokenizer: '/dev/zero' }), /is not a regular file/],
    [
      'huge file',
      () => {
        writeFileSync(join(dir, 'huge.json'), '');
        truncateSync(join(dir, 'huge.json'), 65 * 1024 * 1024); // sparse: no disk, no read
        return resolveTokenizer({ tokenizer: join(dir, 'huge.json') });
      },
      /larger than 67108864 bytes/,
    ],
    [
      'unknown model type',
      () => {
        writeFileSync(join(dir, 'odd.json'), '{"added_tokens": [], "model": {"type": "Nope", "vocab": {}}}');
        return resolveTokenizer({ tokenizer: join(dir, 'odd.json') });
      },
      /cannot be used as a tokenizer/,
    ],
    [
      'broken template',
      () => {
        writeFileSync(join(dir, 'broken.jinja'), '{% for m in messages %}');
        return resolveTokenizer({ tokenizer: bpePath, chatTemplate: join(dir, 'broken.jinja') });
      },
      /does not parse/,
    ],
    [
      'template without tokenizer file',
      () => resolveTokenizer({ chatTemplate: bpePath }),
      /--chat-template needs --tokenizer FILE/,
    ],
  ];
  test.each(bad)('%s: a usage error with a hint', async (_n, run, message) => {
    const err = await run().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(GoodputError);
    expect((err as GoodputError).code).toBe('E_USAGE');
    expect((err as GoodputError).message).toMatch(message);
    expect((err as GoodputError).hint.length).toBeGreaterThan(10);
  });
});
