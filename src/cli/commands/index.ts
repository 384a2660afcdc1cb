/**
 * Every command of the `goodput` binary. Add a command by importing its CommandSpec and
 * appending it to COMMANDS (edit this list in place; several modules add to it).
 *
 * @module
 */

import type { CommandSpec } from '../spec.js';
import { runCommand } from './run.js';

export const COMMANDS: CommandSpec[] = [
  // commands are appended below, one line each
  runCommand,
];
