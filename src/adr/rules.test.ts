import { describe, expect, it } from 'vitest';
import { flagsOf, tokenizeCommandLine } from './args.js';
import { globMatcher, globToRegExp } from './glob.js';
import { checkRules, mergeRules, parseRuleText, rulesFromServingArgs } from './rules.js';
import { parseServingConfig, servingTargets } from './serving-config.js';

describe('globToRegExp', () => {
  const table: Array<[string, string, boolean]> = [
    ['deploy/**/*.yaml', 'deploy/a.yaml', true],
    ['deploy/**/*.yaml', 'deploy/prod/eu/a.yaml', true],
    ['deploy/**/*.yaml', 'deploy/prod/a.yml', false],
    ['deploy/**/*.yaml', 'other/deploy/a.yaml', false],
    ['**/vllm*.args', 'vllm.args', true],
    ['**/vllm*.args', 'serving/vllm-prod.args', true],
    ['**/vllm*.args', 'serving/x-vllm.args', false],
    ['*.yaml', 'a.yaml', true],
    ['*.yaml', 'dir/a.yaml', false],
    ['deploy/?.json', 'deploy/a.json', true],
    ['deploy/?.json', 'deploy/ab.json', false],
    ['deploy/[ab].json', 'deploy/b.json', true],
    ['deploy/[!ab].json', 'deploy/b.json', false],
    ['deploy/[!ab].json', 'deploy/c.json', true],
    ['deploy/*.{yaml,yml}', 'deploy/x.yml', true],
    ['deploy/*.{yaml,yml}', 'deploy/x.json', false],
    ['deploy/**', 'deploy/a/b/c', true],
    ['deploy/**', 'deployx/a', false],
    ['a.b/c+d.txt', 'a.b/c+d.txt', true],
    ['a.b/c+d.txt', 'aXb/c+d.txt', false],
  ];
  it.each(table)('%s vs %s → %s', (glob, path, expected) => {
    expect(globToRegExp(glob).test(path)).toBe(expected);
  });
  it("agrees with node's path.matchesGlob where it exists", async () => {
    const path = await import('node:path');
    const matchesGlob = (path as unknown as { matchesGlob?: (p: string, g: string) => boolean }).matchesGlob;
    if (!matchesGlob) return;
    for (const [glob, p, expected] of table)
      expect([glob, p, matchesGlob(p, glob)]).toEqual([glob, p, expected]);
  });
  it.each<[string, string, boolean]>([
    // braces whose alternatives hold ** reach nested paths
    ['deploy/{a,b/**}/*.json', 'deploy/a/x.json', true],
    ['deploy/{a,b/**}/*.json', 'deploy/b/c/x.json', true],
    ['deploy/{a,b/**}/*.json', 'deploy/b/c/d/x.json', true],
    ['deploy/{a,b/**}/*.json', 'deploy/a/c/x.json', false],
    ['deploy/{prod,staging}/**/*.{yaml,yml}', 'deploy/staging/eu/x.yml', true],
    // dotfiles and dot-directories match, as in GitHub's paths filters
    ['deploy/**/*.yaml', 'deploy/.staging/a.yaml', true],
    ['deploy/*', 'deploy/.env', true],
    ['**/vllm*.args', '.config/vllm.args', true],
    // extglobs
    ['deploy/+(a|b).json', 'deploy/ab.json', true],
  ])('%s vs %s → %s (picomatch syntax)', (glob, path, expected) => {
    expect(globMatcher([glob])(path)).toBe(expected);
  });
  it('a ! glob excludes, whatever its position among the globs', () => {
    for (const globs of [
      ['deploy/**/*.yaml', '!deploy/test/**'],
      ['!deploy/test/**', 'deploy/**/*.yaml'],
    ]) {
      const m = globMatcher(globs);
      expect([m('deploy/prod/a.yaml'), m('deploy/test/a.yaml'), m('deploy/test/x/a.yaml')]).toEqual([
        true,
        false,
        false,
      ]);
    }
    expect(globMatcher(['!deploy/**'])('README.md')).toBe(false); // only exclusions: nothing is included
  });
  it('matches any of several globs, with ./ and \\ normalised', () => {
    const m = globMatcher(['deploy/**/*.yaml', '**/vllm*.args']);
    expect(m('./deploy/x/y.yaml')).toBe(true);
    expect(m('conf\\vllm.args')).toBe(true);
    expect(m('README.md')).toBe(false);
  });
});

describe('tokenizeCommandLine and flagsOf', () => {
  it.each([
    ['vllm serve m --a 1 --b', ['vllm', 'serve', 'm', '--a', '1', '--b']],
    ['x "a b" \'c d\' e\\ f', ['x', 'a b', 'c d', 'e f']],
    ['x \\\n  --y 2 # comment --z\n--w', ['x', '--y', '2', '--w']],
    ['x "q\\"uote" a#b', ['x', 'q"uote', 'a#b']],
    ['', []],
  ])('%j', (text, words) => {
    expect(tokenizeCommandLine(text)).toEqual(words);
  });
  it('reads --k v, --k=v and bare flags; the last occurrence wins', () => {
    const flags = flagsOf(['vllm', 'serve', 'model', '--a', '1', '--b=two', '--c', '--d', '-5', '--a', '3']);
    expect([...flags]).toEqual([
      ['--a', '3'],
      ['--b', 'two'],
      ['--c', true],
      ['--d', '-5'],
    ]);
  });
});

describe('rules', () => {
  it.each([
    ['enable-chunked-prefill', { flag: '--enable-chunked-prefill' }],
    ['--enable-chunked-prefill', { flag: '--enable-chunked-prefill' }],
    ['max-num-batched-tokens=2048', { flag: '--max-num-batched-tokens', equals: '2048' }],
    ['--max-num-batched-tokens 2048', { flag: '--max-num-batched-tokens', equals: '2048' }],
    ['!enforce-eager', { flag: '--enforce-eager', absent: true }],
  ])('parseRuleText(%j)', (text, rule) => {
    expect(parseRuleText(text)).toEqual(rule);
  });
  it('rejects text that is not a rule', () => {
    expect(() => parseRuleText('=2048')).toThrow(/is not a rule/);
  });

  it('derives rules from what the candidate changed in its serving args', () => {
    const rules = rulesFromServingArgs(
      '--enable-chunked-prefill --max-num-batched-tokens 2048 --max-num-seqs 256',
      '--max-num-batched-tokens 8192 --max-num-seqs 256 --enforce-eager',
    );
    expect(rules).toEqual([
      { flag: '--enable-chunked-prefill' },
      { flag: '--max-num-batched-tokens', equals: '2048' },
      { flag: '--enforce-eager', absent: true },
    ]);
    expect(rulesFromServingArgs('--a 1 --b')).toEqual([{ flag: '--a', equals: '1' }, { flag: '--b' }]);
    expect(mergeRules(rules, [{ flag: '--enforce-eager' }]).at(-1)).toEqual({ flag: '--enforce-eager' });
  });

  const rules = [
    { flag: '--enable-chunked-prefill' },
    { flag: '--max-num-batched-tokens', equals: '2048' },
    { flag: '--enforce-eager', absent: true },
  ];
  it.each([
    ['--enable-chunked-prefill --max-num-batched-tokens 2048', []],
    ['--enable-chunked-prefill --max-num-batched-tokens=2048.0', []],
    ['--max-num-batched-tokens 2048', ['--enable-chunked-prefill is missing']],
    [
      '--enable-chunked-prefill --max-num-batched-tokens 4096',
      ["--max-num-batched-tokens is '4096', required 2048"],
    ],
    ['--enable-chunked-prefill', ['--max-num-batched-tokens is missing (required: 2048)']],
    [
      '--enable-chunked-prefill=false --max-num-batched-tokens 2048 --enforce-eager',
      ["--enable-chunked-prefill is switched off ('false')", '--enforce-eager must not be set, found set'],
    ],
    ['--no-enable-chunked-prefill --max-num-batched-tokens 2048', ['--enable-chunked-prefill is missing']],
  ])('checkRules on %j', (line, problems) => {
    expect(checkRules(rules, flagsOf(tokenizeCommandLine(line))).map((v) => v.problem)).toEqual(problems);
  });
});

describe('parseServingConfig', () => {
  it('reads a Kubernetes Deployment container command + args, and skips a sidecar', () => {
    const yaml = `apiVersion: apps/v1
kind: Deployment
spec:
  template:
    spec:
      containers:
        - name: vllm
          command: ["python3", "-m", "vllm.entrypoints.openai.api_server"]
          args: ["--model", "m", "--max-num-batched-tokens", "2048", "--enable-chunked-prefill"]
        - name: proxy
          args: ["--listen", ":8080"]
`;
    const all = parseServingConfig(yaml, 'deploy.yaml');
    expect(all.map((a) => a.source)).toEqual([
      'spec.template.spec.containers[0] (vllm)',
      'spec.template.spec.containers[1] (proxy)',
    ]);
    const targets = servingTargets(all, [{ flag: '--max-num-batched-tokens', equals: '2048' }]);
    expect(targets.map((t) => t.source)).toEqual(['spec.template.spec.containers[0] (vllm)']);
    expect(flagsOf(targets[0]?.tokens ?? []).get('--max-num-batched-tokens')).toBe('2048');
  });

  it('reads a compose command string and a sh -c list', () => {
    const compose = `services:
  llm:
    image: vllm/vllm-openai
    command: --model m --max-num-batched-tokens 4096
  other:
    command: ["sh", "-c", "vllm serve m --enable-chunked-prefill"]
`;
    const all = parseServingConfig(compose, 'compose.yml');
    expect(all.map((a) => [a.source, [...flagsOf(a.tokens).keys()]])).toEqual([
      ['services.llm', ['--model', '--max-num-batched-tokens']],
      ['services.other', ['-c', '--enable-chunked-prefill']],
    ]);
  });

  it('reads JSON and plain command lines, and refuses a manifest without args', () => {
    expect(parseServingConfig('{"args": ["--a", "1"]}', 'x.json')[0]?.tokens).toEqual(['--a', '1']);
    expect(parseServingConfig('vllm serve m \\\n  --a 1\n', 'vllm.args')).toEqual([
      { source: 'command line', tokens: ['vllm', 'serve', 'm', '--a', '1'] },
    ]);
    expect(() => parseServingConfig('kind: ConfigMap\ndata: {}\n', 'cm.yaml')).toThrow(
      /no command or args list/,
    );
    expect(() => parseServingConfig('{', 'x.json')).toThrow(/not valid JSON/);
  });
});
