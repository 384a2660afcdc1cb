/**
 * The embedded engine on a thread of its own, for `goodput run` with no --url: its steps,
 * tokenisation and HTTP work then never delay the load generator's timers and reads, so the
 * client measures the engine as it would a remote server. Falls back to the same process
 * when the compiled worker is not there (running from TypeScript sources, as tests do).
 *
 * @module
 */

import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { GoodputError, type GoodputErrorCode } from '../errors.js';
import { type SimOptions, startSim } from './server.js';

export interface EmbeddedSim {
  url: string;
  port: number;
  model: string;
  /** e.g. "h100:llama-3.1-8b". */
  profileId: string;
  /** True when the engine runs on its own worker thread. */
  isolated: boolean;
  close(): Promise<void>;
}

const WORKER = new URL('./worker.js', import.meta.url);

/** Starts the simulator on a worker thread when possible, else in this process. */
export async function startEmbeddedSim(opts: SimOptions): Promise<EmbeddedSim> {
  const file = fileURLToPath(WORKER);
  if (!existsSync(file)) {
    const sim = await startSim(opts);
    return {
      url: sim.url,
      port: sim.port,
      model: sim.model,
      profileId: sim.profile.id,
      isolated: false,
      close: sim.close,
    };
  }
  const worker = new Worker(WORKER, { workerData: opts });
  type Ready = { url: string; port: number; model: string; profileId: string; error?: undefined };
  type Failed = { error: { message: string; code?: string; hint?: string } };
  const ready = await new Promise<Ready>((resolve, reject) => {
    worker.once('message', (m: Ready | Failed) => {
      if (m.error) {
        const code = (m.error.code ?? 'E_SIM') as GoodputErrorCode;
        reject(
          new GoodputError(code, m.error.message, m.error.hint ?? 'check the --sim-profile and engine flags'),
        );
      } else resolve(m as Ready);
    });
    worker.once('error', reject);
  });
  let closed: Promise<void> | undefined;
  return {
    ...ready,
    isolated: true,
    close() {
      closed ??= new Promise<void>((resolve) => {
        worker.once('exit', () => resolve());
        worker.postMessage('close');
        // A worker stuck in a step must not hold the run's exit.
        setTimeout(() => void worker.terminate(), 2_000).unref();
      });
      return closed;
    },
  };
}
