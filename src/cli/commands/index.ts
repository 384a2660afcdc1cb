/**
 * Every command of the `goodput` binary. Add a command by importing its CommandSpec and
 * appending it to COMMANDS (edit this list in place; several modules add to it).
 *
 * @module
 */

import { adrCommand } from '../../adr/command.js';
import { compareCommand } from '../../compare/command.js';
import { doctorCommand } from '../../doctor/command.js';
import { emitCommand } from '../../emit/command.js';
import type { CommandSpec } from '../../flags/index.js';
import { gateCommand } from '../../gate/command.js';
import { reportCommand } from '../../report/html/command.js';
import { simCommand } from '../../sim/command.js';
import { sweepCommand } from '../../sweep/command.js';
import { watchCommand } from '../../watch/command.js';
import { historyCommand } from '../../watch/history-command.js';
import { mergeCommand } from './merge.js';
import { runCommand } from './run.js';
import { summarizeCommand } from './summarize.js';

export const COMMANDS: CommandSpec[] = [
  // in the order a user meets them: measure, diagnose, decide, report, watch, simulate
  runCommand,
  doctorCommand,
  sweepCommand,
  mergeCommand,
  summarizeCommand,
  compareCommand,
  adrCommand,
  gateCommand,
  reportCommand,
  watchCommand,
  historyCommand,
  emitCommand,
  simCommand,
];
