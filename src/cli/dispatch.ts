/**
 * The CLI without the process: argv and injected streams in, an exit code out. main.ts
 * wires it to the real process; tests call it in-process.
 *
 * @module
 */

import { ExitCode, GoodputError, isGoodputError, outOfFilesError } from '../errors.js';
import type { AnyCommandSpec as AnySpec, CommandContext, CommandEntry } from '../flags/spec.js';
import { closestName, outOfFilesCode, readOpenFilesLimit, terminalSafeStream } from '../util/index.js';
import { toolVersion } from '../util/version.js';
import { renderCommandHelp, renderRootHelp } from './help.js';

/** What the CLI sees of the outside world. */
export type CliIo = Omit<CommandContext, 'args'>;

/** Formats a command-level error for stderr: `error[CODE]: message` then `hint: fix`. */
export function formatError(e: GoodputError): string {
  return `error[${e.code}]: ${e.message}\nhint: ${e.hint}\n`;
}

/** The spec of a listed command, loading it when the entry is lazy. */
async function findCommand(commands: readonly CommandEntry[], name: string): Promise<AnySpec> {
  const entry = commands.find((c) => c.name === name);
  if (entry) return 'load' in entry ? entry.load() : entry;
  const guess = closestName(
    name,
    commands.map((c) => c.name),
  );
  throw new GoodputError(
    'E_USAGE',
    `unknown command '${name}'`,
    guess ? `did you mean goodput ${guess}?` : 'run goodput --help to list the commands',
  );
}

/**
 * The spec with the subcommand that argv picks loaded (at any depth), when its entry is lazy:
 * a command loads the modules of the subcommand that runs, not those of its siblings.
 */
async function withPickedSubcommand(spec: AnySpec, argv: readonly string[]): Promise<AnySpec> {
  const first = argv[0];
  const index = spec.subcommands?.findIndex((s) => s.name === first) ?? -1;
  if (index < 0) return spec;
  const entry = spec.subcommands![index]!;
  const loaded = await withPickedSubcommand('load' in entry ? await entry.load() : entry, argv.slice(1));
  if (loaded === entry) return spec;
  const subcommands = [...spec.subcommands!];
  subcommands[index] = loaded;
  return { ...spec, subcommands };
}

/** The leaf spec a (possibly nested) subcommand path names. */
function leafSpec(spec: AnySpec, subcommand: string | undefined): { spec: AnySpec; path: string } {
  let current = spec;
  let path = spec.name;
  for (const part of subcommand ? subcommand.split(' ') : []) {
    const next = current.subcommands?.find((s) => s.name === part);
    if (!next || 'load' in next) break;
    current = next;
    path = `${path} ${part}`;
  }
  return { spec: current, path };
}

/**
 * Runs one goodput invocation. Never throws and never exits: every failure becomes an
 * exit code, GoodputErrors are printed as `error[CODE]` + `hint` without a stack trace.
 */
export async function runCli(
  argv: readonly string[],
  given: CliIo,
  commands: readonly CommandEntry[],
): Promise<number> {
  // Whatever a server (or a file) put in the text, the terminal and the CI log obey none of its
  // control characters: every command writes through these.
  const io: CliIo = {
    ...given,
    stdout: terminalSafeStream(given.stdout),
    stderr: terminalSafeStream(given.stderr),
  };
  const version = toolVersion();
  try {
    const [name, ...rest] = argv;
    if (name === undefined) {
      io.stderr.write(renderRootHelp(commands, version));
      return ExitCode.USAGE;
    }
    if (name === '--help' || name === '-h' || name === 'help') {
      const topic = name === 'help' ? rest[0] : undefined;
      io.stdout.write(
        topic ? renderCommandHelp(await findCommand(commands, topic)) : renderRootHelp(commands, version),
      );
      return ExitCode.OK;
    }
    if (name === '--version' || name === '-v') {
      io.stdout.write(`${version}\n`);
      return ExitCode.OK;
    }
    if (name.startsWith('-')) {
      throw new GoodputError(
        'E_USAGE',
        `expected a command before ${name}`,
        'write goodput <command> [options], e.g. goodput run --concurrency 8',
      );
    }
    const spec = await withPickedSubcommand(await findCommand(commands, name), rest);
    // The parser (and the config module it checks values with) loads only when a command runs.
    const { parseArgv } = await import('../flags/parse.js');
    const args = parseArgv(spec, rest);
    const leaf = leafSpec(spec, args.subcommand);
    if (args.options.help === true) {
      const parentPath = leaf.path.split(' ').slice(0, -1).join(' ');
      io.stdout.write(renderCommandHelp(leaf.spec, parentPath ? `goodput ${parentPath}` : 'goodput'));
      return ExitCode.OK;
    }
    return await leaf.spec.run({ ...io, args, argv: ['goodput', ...argv] });
  } catch (caught) {
    // Out of file descriptors anywhere (loading a module, opening a file): the limit, not a bug.
    const e = !isGoodputError(caught) && outOfFilesCode(caught) ? await outOfFiles(caught) : caught;
    if (isGoodputError(e)) {
      io.stderr.write(formatError(e));
      return e.exitCode;
    }
    const err = e instanceof Error ? e : new Error(String(e));
    io.stderr.write(
      `error[E_INTERNAL]: ${err.message}\nhint: this is a bug in goodput; rerun with GOODPUT_DEBUG=1 for the stack trace and report it\n`,
    );
    if (io.env.GOODPUT_DEBUG) io.stderr.write(`${err.stack ?? ''}\n`);
    return ExitCode.ERROR;
  }
}

async function outOfFiles(e: unknown): Promise<GoodputError> {
  // The limit is read from a file: let the reads in flight (a module graph loading) end first.
  await new Promise((resolve) => setTimeout(resolve, 20));
  const openFiles = readOpenFilesLimit();
  return outOfFilesError({
    what: e instanceof Error ? e.message : String(e),
    ...(openFiles !== undefined ? { openFiles } : {}),
    cause: e,
  });
}
