/**
 * ADR rules hold under either spelling of a flag (issue 26): `adr enforce` refused llama.cpp's
 * `--parallel 4` for a rule on `-np 4`. The engine is told by the command's program words;
 * without them, a spelling only one engine's table knows maps to that engine's long form.
 */
import { describe, expect, it } from 'vitest';
import type { AdrDocument } from './document.js';
import { enforceRules } from './enforce.js';
import { parseRuleText, rulesFromServingArgs } from './rules.js';
import type { AdrRule } from './schema.js';
import { parseServingConfig } from './serving-config.js';

function adr(rules: AdrRule[]): AdrDocument {
  return {
    frontMatter: {
      schemaVersion: 1,
      id: 'ADR-20250102-001',
      title: 't',
      date: '2025-01-02',
      status: 'accepted',
      rules,
    },
    body: '',
  } as AdrDocument;
}

const problems = (rules: string[], config: string, file = 'serve.sh') =>
  enforceRules(adr(rules.map(parseRuleText)), parseServingConfig(config, file), file).violations.map(
    (v) => v.problem,
  );

describe('a rule and a configuration in different spellings', () => {
  it('parses a single-dash short flag as written (not as --np)', () => {
    expect(parseRuleText('-np=4')).toEqual({ flag: '-np', equals: '4' });
    expect(parseRuleText('-np 4')).toEqual({ flag: '-np', equals: '4' });
    expect(parseRuleText('parallel=4')).toEqual({ flag: '--parallel', equals: '4' });
  });

  it.each([
    // llama.cpp, told by its program
    [['-np=4'], 'llama-server -m model.gguf --parallel 4', []],
    [['--parallel=4'], 'llama-server -m model.gguf -np 4', []],
    [['-np=4'], 'llama-server -m model.gguf --parallel 2', ["-np is '2', required 4"]],
    [
      ['-ub=512', '--batch-size=2048', '-c=8192'],
      '/app/llama-server --ubatch-size 512 -b 2048 --ctx-size=8192',
      [],
    ],
    // the last occurrence wins, whichever spelling each used
    [['-np=8'], 'llama-server -np 2 --parallel 4 -np 8', []],
    [['--parallel=4'], 'llama-server -np 2 --parallel 4 -np 8', ["--parallel is '8', required 4"]],
    // a negated short form switches the long one off
    [['-cb'], 'llama-server -m m.gguf -nocb', ['-cb is missing']],
    // no program named: -np is llama.cpp's alone
    [['-np=4'], '--parallel 4 --threads-http 32', []],
    // vLLM reads underscores as dashes; its short -tp is --tensor-parallel-size
    [['--max-num-seqs=256', '-tp=2'], 'vllm serve m --max_num_seqs 256 --tensor-parallel-size 2', []],
    // SGLang: --tp-size is --tensor-parallel-size
    [['--tensor-parallel-size=2'], 'python -m sglang.launch_server --model-path m --tp-size 2', []],
  ])('rules %j on %j', (rules, line, expected) => {
    expect(problems(rules, line)).toEqual(expected);
  });

  it('picks the engine container of a Kubernetes manifest by its long spelling', () => {
    const manifest = [
      'spec:',
      '  template:',
      '    spec:',
      '      containers:',
      '        - name: llama',
      '          command: [/app/llama-server]',
      '          args: ["--model", "/m.gguf", "--parallel", "4", "--threads-http", "16"]',
      '        - name: sidecar',
      '          args: ["--log-level", "info"]',
      '',
    ].join('\n');
    const r = enforceRules(
      adr([parseRuleText('-np=4')]),
      parseServingConfig(manifest, 'deploy.yaml'),
      'deploy.yaml',
    );
    expect(r.violations).toEqual([]);
    expect(r.lines).toEqual(['[ADR OK] deploy.yaml satisfies the 1 rule(s) of ADR-20250102-001']);
  });
});

describe('rules derived from serving.args labels in two spellings', () => {
  it('-np 2 → --parallel 4 is one changed flag, not a flag dropped', () => {
    expect(rulesFromServingArgs('--parallel 4 -c 8192', '-np 2 --ctx-size 8192')).toEqual([
      { flag: '--parallel', equals: '4' },
    ]);
    expect(rulesFromServingArgs('vllm serve m --max_num_seqs 64', 'vllm serve m --max-num-seqs 128')).toEqual(
      [{ flag: '--max-num-seqs', equals: '64' }],
    );
  });
});
