'use strict';
/**
 * The `require('goodput')` entry. goodput is an ES module without top-level await, so
 * Node 20.19+ and 22.12+ load it with require() directly and this returns the same module
 * instance as `import('goodput')` (no second copy). Older Node versions cannot require() an
 * ES module: they get an error that says what to do instead.
 */
try {
  module.exports = require('../dist/index.js');
} catch (err) {
  if (err && (err.code === 'ERR_REQUIRE_ESM' || err.code === 'ERR_REQUIRE_ASYNC_MODULE')) {
    const e = new Error(
      `goodput is an ES module and Node ${process.versions.node} cannot require() it: ` +
        "use `const goodput = await import('goodput')`, or Node 20.19+ / 22.12+ where require() works",
    );
    e.code = err.code;
    e.cause = err;
    throw e;
  }
  throw err;
}
