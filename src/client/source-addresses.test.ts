/**
 * Source addresses of the client's connections, seen from a real loopback server's side (the
 * remote address of each connection), and the failure of a machine out of local addresses: a
 * source address that is not one of this machine's (TEST-NET 192.0.2.1) makes the kernel answer
 * EADDRNOTAVAIL, as it does when an address has no ephemeral port left.
 */

import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { chatChunk, loopbacksClosedAfterEach, writeEvents } from '../../test/helpers/loopback.js';
import { REQUEST_ERRORS } from '../errors.js';
import type { Clock, Sampling, WorkItem } from '../types.js';
import { classifyNetworkError, createClient } from './index.js';
import {
  connectionsWithinFiles,
  describeLocalLimits,
  LOOPBACK_SOURCE_ADDRESSES,
  RESERVED_FILES,
  sourcePlan,
} from './source-addresses.js';

const clock: Clock = { now: () => performance.now() };
const sampling: Sampling = { temperature: 0, maxTokens: 2, ignoreEos: true };
const item = (index: number): WorkItem => ({
  index,
  id: `r-${index}`,
  warmup: false,
  messages: [{ role: 'user', content: 'hello' }],
  prompt: 'hello',
  promptTokens: 1,
  maxTokens: 2,
});
const NOT_LOCAL = '192.0.2.1';

const loopback = loopbacksClosedAfterEach();

/** A server that answers once `together` requests are open at once (so each has a connection of its own), noting each one's source address. */
async function serverOfSources(together: number) {
  const sources: string[] = [];
  const waiting: (() => void)[] = [];
  const lb = await loopback(async (req, res, _body, socket) => {
    if (req.method !== 'POST') return;
    sources.push(socket.remoteAddress ?? '');
    await new Promise<void>((resolve) => {
      waiting.push(resolve);
      if (waiting.length >= together) for (const w of waiting.splice(0)) w();
    });
    await writeEvents(res, [chatChunk({ content: 'a' }), chatChunk({ content: 'b' }, 'length'), '[DONE]']);
  });
  return { url: lb.url, sources };
}

async function sendAll(url: string, n: number, sourceAddresses?: string[]) {
  const client = createClient(
    {
      baseUrl: url,
      api: 'chat',
      model: 'm',
      timeoutMs: 5000,
      sampling,
      connections: n,
      maxRetries: 0,
      ...(sourceAddresses ? { sourceAddresses } : {}),
    },
    clock,
  );
  try {
    return await Promise.all(
      Array.from({ length: n }, (_, i) => client.send(item(i), { scheduledMs: clock.now() })),
    );
  } finally {
    await client.close();
  }
}

describe.runIf(process.platform === 'linux')('connections over several loopback source addresses', () => {
  it('--source-addresses: the connections leave from each address in turn', async () => {
    const server = await serverOfSources(6);
    const records = await sendAll(server.url, 6, ['127.0.0.1', '127.0.0.2', '127.0.0.3']);
    expect(records.map((r) => r.outcome)).toEqual(Array(6).fill('success'));
    const count = (a: string) => server.sources.filter((s) => s === a).length;
    expect([count('127.0.0.1'), count('127.0.0.2'), count('127.0.0.3')]).toEqual([2, 2, 2]);
  });

  it('an address with no port to give (EADDRNOTAVAIL): the connection leaves from the next one', async () => {
    const server = await serverOfSources(4);
    const records = await sendAll(server.url, 4, [NOT_LOCAL, '127.0.0.2']);
    expect(records.map((r) => r.outcome)).toEqual(Array(4).fill('success'));
    expect(server.sources).toEqual(Array(4).fill('127.0.0.2'));
  });

  it('no address left: the request fails as SOCKETS_EXHAUSTED, with the socket error in its message and the fix in its hint', async () => {
    const server = await serverOfSources(1);
    const [record] = await sendAll(server.url, 1, [NOT_LOCAL]);
    expect(record!.outcome).toBe('error');
    expect(record!.error?.code).toBe('SOCKETS_EXHAUSTED');
    expect(record!.error?.message).toMatch(/EADDRNOTAVAIL/);
    expect(server.sources).toEqual([]);
    expect(REQUEST_ERRORS.SOCKETS_EXHAUSTED.hint).toMatch(
      /--source-addresses.*ulimit -n.*ip_local_port_range/,
    );
  });

  it('a loopback target with no addresses given connects from the default address (the spread starts only when ports run out)', async () => {
    const server = await serverOfSources(3);
    const records = await sendAll(server.url, 3);
    expect(records.map((r) => r.outcome)).toEqual(Array(3).fill('success'));
    expect(server.sources).toEqual(Array(3).fill('127.0.0.1'));
  });
});

describe('source plans and local limits', () => {
  it.each([
    ['127.0.0.1', undefined, 'linux', LOOPBACK_SOURCE_ADDRESSES, 'on-exhaustion'],
    ['127.9.9.9', undefined, 'linux', LOOPBACK_SOURCE_ADDRESSES, 'on-exhaustion'],
    ['127.0.0.1', undefined, 'darwin', 0, undefined],
    ['localhost', undefined, 'linux', 0, undefined],
    ['[::1]', undefined, 'linux', 0, undefined],
    ['10.0.0.5', undefined, 'linux', 0, undefined],
    ['10.0.0.5', ['10.0.0.9', '10.0.0.10'], 'linux', 2, 'turns'],
    ['127.0.0.1', ['127.0.0.5'], 'darwin', 1, 'turns'],
  ] as const)('%s given %j on %s: %i addresses, %s', (host, given, platform, n, spread) => {
    const plan = sourcePlan(host, given, platform);
    expect(plan?.addresses.length ?? 0).toBe(n);
    expect(plan?.spread).toBe(spread);
  });

  it('the loopback spread starts at the default address, then 127.0.0.2 on', () => {
    expect(sourcePlan('127.0.0.1', undefined, 'linux')?.addresses.slice(0, 3)).toEqual([
      undefined,
      '127.0.0.2',
      '127.0.0.3',
    ]);
  });

  it('says when the connections will not fit the file limit or the ports, naming the fix', () => {
    const limits = { openFiles: 1024, ports: 28_232 };
    expect(describeLocalLimits(1024 - RESERVED_FILES, limits, undefined)).toBeUndefined();
    expect(describeLocalLimits(1024, limits, undefined)).toMatch(
      /over this process's limit of 1024: raise it with ulimit -n/,
    );
    const many = { openFiles: 1_000_000, ports: 28_232 };
    expect(describeLocalLimits(40_000, many, undefined)).toMatch(/--source-addresses.*ip_local_port_range/);
    expect(describeLocalLimits(40_000, many, sourcePlan('127.0.0.1', undefined, 'linux'))).toBeUndefined();
    expect(describeLocalLimits(40_000, {}, undefined)).toBeUndefined();
  });

  it.each<[number | undefined, number, number | undefined]>([
    [1024, 1, 1024 - RESERVED_FILES],
    [1024, 2, (1024 - RESERVED_FILES) / 2],
    [161, 2, 48],
    [RESERVED_FILES, 1, 1],
    [undefined, 1, undefined],
  ])('ulimit -n %j, %i file(s) a connection: room for %j connections', (openFiles, per, room) => {
    expect(connectionsWithinFiles(openFiles, per)).toBe(room);
  });

  it('says the pool is held within the file limit when it is, with the files the load needs', () => {
    const note = describeLocalLimits(400, { openFiles: 128 }, undefined, {
      filesCap: 32,
      filesPerConnection: 2,
    });
    expect(note).toBe(
      "connections: 400 connections at once need about 864 open files, over this process's limit of 128: the client holds at most 32 and the other requests wait in it for one (the server sees at most 32 at once); raise it with ulimit -n 864 (or more) in the shell that starts goodput, or lower the load",
    );
  });

  it.each(['EADDRNOTAVAIL', 'EADDRINUSE', 'EMFILE', 'ENFILE'])(
    "%s is SOCKETS_EXHAUSTED, under undici's wrapper too",
    (code) => {
      const socketError = Object.assign(new Error(`connect ${code}`), { code });
      expect(classifyNetworkError(socketError).code).toBe('SOCKETS_EXHAUSTED');
      const wrapped = Object.assign(new Error('other side closed'), {
        code: 'UND_ERR_SOCKET',
        cause: socketError,
      });
      expect(classifyNetworkError(wrapped)).toEqual({
        code: 'SOCKETS_EXHAUSTED',
        message: `${code}: connect ${code}`,
      });
    },
  );
});
