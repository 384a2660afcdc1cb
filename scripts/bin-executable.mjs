#!/usr/bin/env node
/**
 * Sets the exec bits of every `bin` of package.json after the build, so that a fresh checkout
 * runs it as a program: `npm ci && npx goodput` would otherwise answer "Permission denied"
 * (tsc writes 0644, and bin/goodput.js loses its mode in a checkout made with
 * core.fileMode=false or unpacked from an archive). Run by `npm run build`. Exits 1 naming
 * the file when a bin is missing.
 */
import { chmodSync, existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const bins = typeof pkg.bin === 'string' ? [pkg.bin] : Object.values(pkg.bin ?? {});
for (const bin of bins) {
  const path = join(root, bin);
  if (!existsSync(path)) {
    console.error(`${bin} was not built: run tsc -p tsconfig.build.json first`);
    process.exit(1);
  }
  // Read and exec for whoever may read it: 0644 → 0755.
  const mode = statSync(path).mode & 0o777;
  chmodSync(path, mode | ((mode & 0o444) >> 2));
}
