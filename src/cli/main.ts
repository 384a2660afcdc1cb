#!/usr/bin/env node
/**
 * The CLI's program: wires the process (argv, streams, env, signals, exit code) to runCli.
 * The only place that calls process.exit. The `goodput` command (bin/goodput.js) starts node
 * with the CLI's heap flag and imports this; `node dist/cli/main.js` runs it without.
 *
 * Ctrl-C (SIGINT) or SIGTERM aborts the command's signal: the run stops its load, aborts
 * what is in flight, writes everything measured and exits 130. A second Ctrl-C exits at once.
 *
 * @module
 */

import { ExitCode } from '../errors.js';
import { stopInputReads } from '../util/index.js';
import { COMMANDS } from './commands/index.js';
import { runCli } from './dispatch.js';

const controller = new AbortController();
let signalled = 0;

function onSignal(name: NodeJS.Signals): void {
  signalled++;
  if (signalled === 1) {
    process.stderr.write(
      `\n${name}: stopping, writing what was measured (press Ctrl-C again to quit at once)\n`,
    );
    controller.abort(new Error(`stopped by ${name}`));
    stopInputReads();
    return;
  }
  process.exit(ExitCode.INTERRUPTED);
}

process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

const ran = await runCli(
  process.argv.slice(2),
  {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
    signal: controller.signal,
  },
  COMMANDS,
);

// A command stopped by the signal ends 130 whatever it failed with on the way out (an input
// read cut short is reported as such, but the cause is the signal).
const code = signalled > 0 && ran !== ExitCode.OK ? ExitCode.INTERRUPTED : ran;
// Let stdout drain (large --json output into a pipe) before exiting.
process.exitCode = code;
process.stdout.write('', () => process.exit(code));
