#!/bin/sh
':' //; goodput_cores=$(getconf _NPROCESSORS_ONLN 2>/dev/null || nproc 2>/dev/null)
':' //; case $goodput_cores in 1 | 2) goodput_pool=--v8-pool-size=1 ;; *) goodput_pool= ;; esac
':' //; exec node --initial-old-space-size=64 --no-allocation-site-pretenuring $goodput_pool "$0" "$@"
/**
 * The `goodput` command: sh and JavaScript at once. sh runs the lines above, the last of which
 * replaces the shell with node started with the options the CLI needs (`exec`: one process, the
 * same pid, so Ctrl-C, `kill` and the exit status reach goodput unchanged); node then runs this
 * file as a module, reads each of those lines as a string and a comment, and starts the CLI
 * below. (biome.json leaves this file unformatted: the semicolon it would put after each string
 * breaks the sh.)
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
 * `--no-allocation-site-pretenuring`: V8 decides, per allocation site, to allocate its objects
 * straight in the old generation once most of them have outlived a scavenge, and never takes it
 * back. A fresh process's first seconds made that so for sites of the per-request path in most
 * runs; from then on each request left objects in the old generation that held its young ones
 * through every scavenge. Fresh processes at 2,000 req/s on 2 cores (`--trace-gc-nvp`): in 6 of
 * 8 runs about 0.8 MB promoted per scavenge for the whole run and pauses of 3–4 ms, in the other
 * 2 about 30 KB and 1 ms; with the flag, 30 KB and 1 ms in 5 of 5, and the open loop's lag p99
 * 1.5–2.3 ms against 3.0–5.3 ms in the promoting state (README performance table,
 * open-loop-pacing, where GOODPUT_BENCH_FRESH=1 measures fresh processes). The gc-pauses caveat
 * names this flag with the heap's.
 *
 * On a machine of one or two cores, V8's pool of background threads (node's default: 4, for
 * compiling and for the GC's helpers) shrinks to one: a fresh process compiles much of the
 * client's hot path during its first run, and on 2 cores shared with the server those threads
 * took the cores the pacer and the event loop were due on. Measured at 2,000 req/s on 2 cores
 * (README performance table, open-loop-pacing): a fresh process's first repetition 0.92–2.42×
 * the minimal pacer's lag p99, median 1.47 (10 runs), against 1.57–2.95, median 1.92 (13 runs);
 * GC pauses no longer. With more cores the pool stays node's, so `--workers N` keeps its helpers.
 *
 * These lines are the one definition of the CLI's node options: bench/lib/cli-node-flags.mjs
 * runs them (with a node that only prints what it is given), so that the benches run goodput as
 * this command starts it.
 */
import '../dist/cli/main.js';
