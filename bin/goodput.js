#!/bin/sh
':' //; exec node --initial-old-space-size=64 "$0" "$@"
/**
 * The `goodput` command: sh and JavaScript at once. sh runs the line above, which replaces the
 * shell with node started with the heap flag the CLI needs (`exec`: one process, the same pid, so
 * Ctrl-C, `kill` and the exit status reach goodput unchanged); node then runs this file as a
 * module, reads that line as a string and a comment, and starts the CLI below. (biome.json
 * leaves this file unformatted: the semicolon it would put after the string breaks the sh.)
 *
 * The flag: node's old generation starts small, and while it is each scavenge promotes many
 * times what it does later, so a fresh process pauses for GC about three times as long in its
 * first run (at 2,000 req/s on 2 cores, 136–156 ms against 45–59 ms of a 10 s run, README
 * performance table). `NODE_OPTIONS` refuses the flag, V8 reads it only when the heap is made,
 * and a shebang `#!/usr/bin/env -S node …` fails where `env` is busybox's; a sh line works
 * everywhere npm links a bin (a symlink, or pnpm's sh shim that runs this file with sh).
 * `node bin/goodput.js …` (Windows, where there is no sh) runs the CLI without the flag;
 * the run's `gc-pauses` caveat then names it.
 *
 * This line is the one definition of the CLI's node flags: bench/lib/cli-node-flags.mjs reads
 * it, so that the benches run goodput as this command starts it.
 */
import '../dist/cli/main.js';
