/**
 * A loopback OTLP/HTTP receiver (node:http on 127.0.0.1, port 0) that decodes what it gets with
 * the official protobuf definitions (open-telemetry/opentelemetry-proto, vendored under
 * test/fixtures/opentelemetry-proto, loaded with protobufjs): ExportMetricsServiceRequest at
 * /v1/metrics, ExportTraceServiceRequest at /v1/traces. It can fail (HTTP 500) or stall on purpose.
 *
 * @module
 */

import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import protobuf from 'protobufjs';

const PROTO_ROOT = join(import.meta.dirname, '..', 'fixtures', 'opentelemetry-proto');

async function loadRoot(): Promise<protobuf.Root> {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => join(PROTO_ROOT, target);
  await root.load(
    [
      'opentelemetry/proto/collector/metrics/v1/metrics_service.proto',
      'opentelemetry/proto/collector/trace/v1/trace_service.proto',
    ],
    { keepCase: false },
  );
  return root;
}

/** One decoded OTLP request. */
export interface OtlpRequest {
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body, to look for what must not be in it. */
  raw: Buffer;
  /** The decoded message as plain JSON (longs as strings, bytes as hex). */
  body: Record<string, unknown>;
}

export interface OtlpReceiver {
  url: string;
  requests: OtlpRequest[];
  close(): Promise<void>;
}

/** 'ok' answers 200, 'fail' 500, 'stall' never answers. */
export type ReceiverMode = 'ok' | 'fail' | 'stall';

export async function startOtlpReceiver(mode: ReceiverMode = 'ok'): Promise<OtlpReceiver> {
  const root = await loadRoot();
  const types = {
    '/v1/metrics': root.lookupType('opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest'),
    '/v1/traces': root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest'),
  } as const;
  const requests: OtlpRequest[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(parts);
      const path = req.url ?? '';
      const type = types[path as keyof typeof types];
      if (mode === 'stall') return;
      if (!type) {
        res.writeHead(404).end();
        return;
      }
      const message = type.decode(raw);
      const body = type.toObject(message, {
        longs: String,
        bytes: String,
        enums: String,
        defaults: false,
      }) as Record<string, unknown>;
      requests.push({ path, headers: req.headers, raw, body });
      if (mode === 'fail') {
        res.writeHead(500, { 'content-type': 'text/plain' }).end('collector down');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

interface KeyValue {
  key: string;
  value: Record<string, unknown>;
}

/** OTLP attributes (KeyValue list) as a plain record. */
export function attributesOf(list: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const kv of (list as KeyValue[] | undefined) ?? []) {
    const v = kv.value;
    out[kv.key] =
      v.stringValue ??
      (v.intValue !== undefined ? Number(v.intValue) : undefined) ??
      v.doubleValue ??
      v.boolValue ??
      v.arrayValue;
  }
  return out;
}

/** A decoded histogram data point, its attributes as a record. */
export interface HistogramPoint {
  attributes: Record<string, unknown>;
  count: number;
  sum: number;
}

/** Every metric of the metrics requests received, by name: unit and its histogram points (the last export's, cumulative). */
export function metricsByName(
  requests: readonly OtlpRequest[],
): Map<string, { unit: string; points: HistogramPoint[] }> {
  const out = new Map<string, { unit: string; points: HistogramPoint[] }>();
  for (const r of requests.filter((q) => q.path === '/v1/metrics')) {
    for (const rm of (r.body.resourceMetrics as Array<Record<string, unknown>>) ?? []) {
      for (const sm of (rm.scopeMetrics as Array<Record<string, unknown>>) ?? []) {
        for (const m of (sm.metrics as Array<Record<string, unknown>>) ?? []) {
          const hist = m.histogram as { dataPoints?: Array<Record<string, unknown>> } | undefined;
          const points = (hist?.dataPoints ?? []).map((p) => ({
            attributes: attributesOf(p.attributes),
            count: Number(p.count),
            sum: Number(p.sum),
          }));
          // cumulative temporality: the last export holds the totals
          out.set(m.name as string, { unit: (m.unit as string) ?? '', points });
        }
      }
    }
  }
  return out;
}
