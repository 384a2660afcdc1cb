// `node --import ./module-trace.mjs …`: registers module-trace-hooks.mjs before the program loads.
import { register } from 'node:module';

register('./module-trace-hooks.mjs', import.meta.url);
