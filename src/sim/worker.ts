/**
 * Worker-thread entry of the isolated simulator (see isolated.ts): starts the engine's HTTP
 * server on this thread's own event loop and answers `close`.
 *
 * @module
 */

import { parentPort, workerData } from 'node:worker_threads';
import { type SimOptions, startSim } from './server.js';

if (parentPort) {
  const port = parentPort;
  startSim(workerData as SimOptions).then(
    (sim) => {
      port.on('message', (m) => {
        if (m === 'close') sim.close().then(() => port.close());
      });
      port.postMessage({ url: sim.url, port: sim.port, model: sim.model, profileId: sim.profile.id });
    },
    (e: Error & { code?: string; hint?: string }) => {
      port.postMessage({ error: { message: e.message, code: e.code, hint: e.hint } });
      port.close();
    },
  );
}
