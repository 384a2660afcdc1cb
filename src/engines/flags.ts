/**
 * One flag, several spellings: llama.cpp's `-np` is `--parallel`, vLLM's `--max_num_seqs` is
 * `--max-num-seqs`. `canonicalFlag` maps a spelling to the engine's long form, so that a rule
 * written one way holds a configuration written the other; `engineOfCommand` tells the engine
 * from the program words of a serving command line. Pure.
 *
 * @module
 */

import { ENGINE_PROFILES, type EngineId, engineProfile, type KnownEngine } from './profiles.js';

/** spelling → long form, per engine. */
const CANONICAL: ReadonlyMap<KnownEngine, ReadonlyMap<string, string>> = new Map(
  Object.values(ENGINE_PROFILES).map((p) => [
    p.id,
    new Map(p.flagAliases.flatMap((group) => group.map((spelling) => [spelling, group[0]!] as const))),
  ]),
);

/** vLLM's parser reads `--max_num_seqs` as `--max-num-seqs`. */
function dashes(flag: string): string {
  return flag.startsWith('--') ? `--${flag.slice(2).replaceAll('_', '-')}` : flag;
}

/**
 * The long form of a flag for an engine: `-np` → `--parallel` (llama.cpp), `--max_num_seqs` →
 * `--max-num-seqs` (vLLM). With the engine not known, a spelling that only one engine's table
 * lists maps to that engine's long form, and one that tables map differently stays as it is.
 */
export function canonicalFlag(flag: string, engine?: EngineId): string {
  const profile = engineProfile(engine);
  if (profile) {
    const own = CANONICAL.get(profile.id)!.get(flag);
    if (own !== undefined) return own;
    return profile.id === 'vllm' ? dashes(flag) : flag;
  }
  const forms = new Set<string>();
  for (const table of CANONICAL.values()) {
    const long = table.get(flag);
    if (long !== undefined) forms.add(long);
  }
  if (forms.size === 1) return [...forms][0]!;
  return forms.size === 0 ? dashes(flag) : flag;
}

/** Program words that name an engine (binaries, Python modules, images). */
const PROGRAMS: ReadonlyArray<[RegExp, KnownEngine]> = [
  [/llama-server|llama\.cpp|llama-cpp|llamacpp/i, 'llamacpp'],
  [/sglang/i, 'sglang'],
  [/text-generation-launcher|text-generation-inference/i, 'tgi'],
  [/trtllm-serve|tensorrt_llm|tensorrt-llm/i, 'trtllm'],
  [/(^|[/._-])vllm([/._-]|$)/i, 'vllm'],
];

/**
 * The engine a serving command runs, from the words before its first flag (`llama-server`,
 * `vllm serve`, `python -m sglang.launch_server`, `text-generation-launcher`); `unknown` when
 * none names one. Flag values (a model path that mentions vllm) are not read.
 */
export function engineOfCommand(tokens: readonly string[]): EngineId {
  for (const t of tokens) {
    if (t.startsWith('-') && t !== '-m') break;
    for (const [re, engine] of PROGRAMS) if (re.test(t)) return engine;
  }
  return 'unknown';
}
