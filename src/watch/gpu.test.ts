/**
 * GpuWatch: one scrape loop per distinct exporter URL, however many targets share it; each
 * target's window is its own (cut by its own rounds).
 */

import { expect, test } from 'vitest';
import { DCGM_FIXTURE } from '../../test/helpers/dcgm-fixture.js';
import { loopbacksClosedAfterEach, sleep } from '../../test/helpers/loopback.js';
import { GpuWatch } from './gpu.js';

const serve = loopbacksClosedAfterEach();

test('targets sharing an exporter share its scrape loop; each cuts its own window', async () => {
  const exporter = () =>
    serve((_q, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(DCGM_FIXTURE);
    });
  const [shared, own] = await Promise.all([exporter(), exporter()]);
  const log: string[] = [];
  const gpu = new GpuWatch(
    new Map([
      ['a', `${shared.url}/metrics`],
      ['b', `${shared.url}/metrics`],
      ['c', `${own.url}/metrics`],
    ]),
    { intervalMs: 50, log: (t) => log.push(t) },
  );
  try {
    await sleep(300);
    const a1 = gpu.cut('a')!;
    await sleep(200);
    const a2 = gpu.cut('a')!;
    const b = gpu.cut('b')!;
    const c = gpu.cut('c')!;
    expect(c.metricsUrl).toBe(`${own.url}/metrics`);
    expect(c.samples).toBeGreaterThan(0);
    expect(gpu.cut('none')).toBeUndefined();
    // One loop per URL: the shared exporter was scraped no more often than the other one.
    // (Two loops on it would have scraped it about twice as often.)
    expect(own.requests.length).toBeGreaterThanOrEqual(4);
    expect(shared.requests.length).toBeLessThanOrEqual(own.requests.length + 2);
    // a's two windows split what b saw in one, none lost, none twice.
    expect(a1.samples).toBeGreaterThan(0);
    expect(a2.samples).toBeGreaterThan(0);
    expect(b.samples).toBe(a1.samples + a2.samples);
    expect(b.metricsUrl).toBe(`${shared.url}/metrics`);
    expect(b.gpuCount).toBe(2);
    expect(gpu.cut('b')!.samples).toBe(0);
    expect(log).toEqual([]);
  } finally {
    await gpu.close();
  }
});
