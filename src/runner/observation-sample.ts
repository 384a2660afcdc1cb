/**
 * The diagnosis sample of a run: a uniform sample of its measured requests (reservoir.ts), each
 * kept as numbers in columns (ObservationColumns), so that holding thousands of them costs the
 * garbage collector nothing while the run goes; made into observations once, for diagnosis.
 *
 * @module
 */

import { ObservationColumns, type RequestObservation } from '../diagnosis/index.js';
import type { RequestRecord } from '../types.js';
import { Reservoir } from './reservoir.js';

export class ObservationSample {
  private readonly reservoir: Reservoir<never>;
  private readonly columns: ObservationColumns;

  /** `random`: uniform numbers in [0, 1) (a seeded stream, for a reproducible sample). */
  constructor(capacity: number, random: () => number) {
    this.reservoir = new Reservoir<never>(capacity, random);
    this.columns = new ObservationColumns(capacity);
  }

  /** Offers a measured record. */
  offer(record: RequestRecord): void {
    const slot = this.reservoir.slot();
    if (slot >= 0) this.columns.write(slot, record);
  }

  /** The observations kept. */
  items(): RequestObservation[] {
    return this.columns.read(this.reservoir.size);
  }
}
