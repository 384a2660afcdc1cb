import { describe, expect, it } from 'vitest';
import { BENCHMARK_OPTIONS } from './options/index.js';
import { parseArgv } from './parse.js';
import { resolveBenchmarkConfig } from './resolve.js';
import type { CommandSpec } from './spec.js';

const spec: CommandSpec = { name: 'run', summary: '', options: BENCHMARK_OPTIONS, run: async () => 0 };
const resolve = async (argv: string[]) => resolveBenchmarkConfig(parseArgv(spec, argv), {}, process.cwd());
const classes = ['--class', 'name=a,share=0.5,model=a-lora', '--class', 'name=b,share=0.5,model=b-lora'];

describe("the classes' models on the embedded engine", () => {
  it('serves the models the classes name as LoRA adapters, in --max-loras slots, beside the other engine flags', async () => {
    const config = await resolve([...classes, '--max-loras', '2', '--scheduling-policy', 'priority']);
    expect(config.sim?.engine).toEqual({
      loraModules: ['a-lora', 'b-lora'],
      maxLoras: 2,
      schedulingPolicy: 'priority',
    });
    // --sim-profile after them keeps them.
    const profiled = await resolve([...classes, '--sim-profile', 'a100:llama-3.1-8b']);
    expect(profiled.sim).toMatchObject({
      profile: 'a100:llama-3.1-8b',
      engine: { loraModules: ['a-lora', 'b-lora'] },
    });
  });

  it('leaves a server its own models: nothing registered with --url, and --max-loras refused', async () => {
    const remote = await resolve(['--url', 'http://127.0.0.1:9', ...classes]);
    expect(remote.sim?.engine).toBeUndefined();
    await expect(resolve(['--url', 'http://127.0.0.1:9', '--max-loras', '2'])).rejects.toMatchObject({
      code: 'E_USAGE',
      message: '--max-loras applies to the embedded engine only',
    });
  });
});
