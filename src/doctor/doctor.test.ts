import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../../test/helpers/cli.js';
import { ExitCode } from '../errors.js';
import { parseArgv, resolveBenchmarkConfig } from '../flags/index.js';
import { type SimServer, startSim } from '../sim/index.js';
import { doctorCommand } from './command.js';
import { runDoctor } from './doctor.js';
import type { DoctorReport } from './types.js';

const KEY = 'key-doctor-canary-0123456789abcdef';

async function doctor(argv: string[], env: Record<string, string | undefined> = {}) {
  const r = await runCliInProcess(['doctor', ...argv], {
    cwd: process.cwd(),
    env,
    commands: [doctorCommand],
  });
  return { code: r.code, out: r.stdout, err: r.stderr, all: r.stdout + r.stderr };
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    ),
  );
}

let sim: SimServer;
let keyed: SimServer;
beforeAll(async () => {
  sim = await startSim({ host: '127.0.0.1', port: 0, seed: 3, slowdown: 0.05 });
  keyed = await startSim({ host: '127.0.0.1', port: 0, seed: 3, slowdown: 0.05, apiKey: KEY });
});
afterAll(async () => {
  await sim.close();
  await keyed.close();
});

describe('goodput doctor against real loopback servers', () => {
  it('passes every stage against a healthy engine, with --json for machines', async () => {
    const r = await doctor(['--url', sim.url, '--json']);
    expect(r.code).toBe(ExitCode.OK);
    const report = JSON.parse(r.out) as DoctorReport;
    expect(report.steps.map((s) => s.stage)).toEqual([
      'config',
      'reachability',
      'models',
      'non-streaming',
      'streaming',
      'conformance',
    ]);
    expect(report.steps.every((s) => s.status !== 'fail')).toBe(true);
    expect(report.target).toBe(`${sim.url}/v1/chat/completions`);
  });

  it('names the delta field a reasoning server streams its reasoning in', async () => {
    for (const field of ['reasoning_content', 'reasoning'] as const) {
      const s = await startSim({
        host: '127.0.0.1',
        port: 0,
        seed: 3,
        slowdown: 0.05,
        reasoning: { length: { kind: 'fixed', tokens: 4 }, field },
      });
      try {
        const r = await doctor(['--url', s.url, '--json']);
        expect(r.code, r.all).toBe(ExitCode.OK);
        const report = JSON.parse(r.out) as DoctorReport;
        const conformance = report.steps.find((x) => x.stage === 'conformance');
        expect(JSON.stringify(conformance)).toContain(`reasoning text in delta.${field}`);
      } finally {
        await s.close();
      }
    }
    // and a server without reasoning says so
    const plain = JSON.parse((await doctor(['--url', sim.url, '--json'])).out) as DoctorReport;
    expect(JSON.stringify(plain.steps.find((x) => x.stage === 'conformance'))).toContain(
      'no reasoning fields',
    );
  });

  it('with no --url checks the embedded engine', async () => {
    const r = await doctor([]);
    expect(r.code).toBe(ExitCode.OK);
    expect(r.out).toMatch(/checking the embedded simulated engine/);
    expect(r.out).toMatch(/✓ Streaming completion/);
  });

  it('nothing listening: reachability fails with the cause and the fix', async () => {
    const s = createServer();
    const url = await listen(s);
    await new Promise((resolve) => s.close(resolve));
    const r = await doctor(['--url', url]);
    expect(r.code).toBe(ExitCode.DOCTOR_REACHABILITY);
    expect(r.out).toMatch(/cause: TCP .*nothing is listening/);
    expect(r.out).toMatch(/fix: check that the server is running/);
  });

  it('https against a plain server: TLS fails and says to use http://, with no Node warning on stderr', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
    process.on('warning', onWarning);
    const r = await doctor(['--url', sim.url.replace('http:', 'https:')]).finally(() =>
      process.off('warning', onWarning),
    );
    // an IP URL sends no SNI name (Node's DEP0123 warning otherwise)
    expect(warnings).toEqual([]);
    expect(r.code).toBe(ExitCode.DOCTOR_REACHABILITY);
    expect(r.out).toMatch(/cause: TLS/);
    expect(r.out).toMatch(/fix: use http:\/\/ instead of https:\/\//);
  });

  it('a base URL with a query string stops at the configuration', async () => {
    const r = await doctor(['--url', `${sim.url}/?utm_source=newsletter`]);
    expect(r.code).toBe(ExitCode.DOCTOR_CONFIG);
    expect(r.out).toMatch(/cause: --url: the base URL carries a query string \(\?utm_source=newsletter\)/);
    expect(r.out).toContain(`fix: use --url ${sim.url}`);
  });

  it('a base URL with /v1 twice stops at the configuration with the right URL', async () => {
    const r = await doctor(['--url', `${sim.url}/v1/v1`]);
    expect(r.code).toBe(ExitCode.DOCTOR_CONFIG);
    expect(r.out).toMatch(/\/v1 twice/);
    expect(r.out).toContain(`fix: use --url ${sim.url}`);
  });

  it('a missing key on a keyed server: models answer 401 and the fix names the env var', async () => {
    const r = await doctor(['--url', keyed.url]);
    expect(r.code).toBe(ExitCode.DOCTOR_MODELS);
    expect(r.out).toMatch(/HTTP 401/);
    expect(r.out).toMatch(/fix: .*GOODPUT_API_KEY/);
  });

  it('a key with a trailing newline: noted (length and last four only), trimmed, and the channel works', async () => {
    const r = await doctor(['--url', keyed.url], { GOODPUT_API_KEY: `${KEY}\n` });
    expect(r.code).toBe(ExitCode.OK);
    expect(r.out).toMatch(/ends with a newline/);
    expect(r.out).toContain(`${KEY.length} characters, ending …cdef`);
    expect(r.all).not.toContain(KEY);
  });

  it('a model id in the wrong case: the served id is suggested', async () => {
    const r = await doctor(['--url', sim.url, '--model', sim.model.toUpperCase()]);
    expect(r.code).toBe(ExitCode.DOCTOR_MODELS);
    expect(r.out).toMatch(/case-sensitive/);
    expect(r.out).toContain(`fix: use --model ${sim.model}`);
  });

  it('a config asking for OAuth is refused at the configuration', async () => {
    const { mkdtemp, writeFile } = await import('node:fs/promises');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const dir = await mkdtemp(join(tmpdir(), 'doctor-'));
    const file = join(dir, 'gw.json');
    await writeFile(
      file,
      JSON.stringify({ baseUrl: sim.url, auth: { type: 'oauth2', client_secret: 'hush-123' } }),
    );
    const r = await doctor(['--config', file]);
    expect(r.code).toBe(ExitCode.DOCTOR_CONFIG);
    expect(r.out).toMatch(/auth mode this channel does not use \(auth: oauth2\)/);
    expect(r.all).not.toContain('hush-123');
  });
});

describe('goodput doctor with injected failures', () => {
  it('500 on completions: non-streaming fails with the server message', async () => {
    const s = await startSim({ host: '127.0.0.1', port: 0, seed: 1, failures: { serverError: 1 } });
    try {
      const r = await doctor(['--url', s.url]);
      expect(r.code).toBe(ExitCode.DOCTOR_NON_STREAMING);
      expect(r.out).toMatch(/HTTP 500: the server failed while handling the request/);
      expect(r.out).toMatch(/the server said: "/);
    } finally {
      await s.close();
    }
  });

  it('429: the fix says whether Retry-After came', async () => {
    const s = await startSim({
      host: '127.0.0.1',
      port: 0,
      seed: 1,
      failures: { rateLimit: 1, retryAfterS: 2 },
    });
    try {
      const r = await doctor(['--url', s.url]);
      expect(r.code).toBe(ExitCode.DOCTOR_NON_STREAMING);
      expect(r.out).toMatch(/HTTP 429/);
      expect(r.out).toMatch(/retry after 2 s/);
    } finally {
      await s.close();
    }
  });

  // Stream-only failures: the simulator answers a non-streamed request with their
  // non-streamed equivalent (500, truncated JSON), as real engines do, so the failure is
  // switched on once the non-streaming stage has passed.
  async function streamFailure(failures: Parameters<SimServer['setFailures']>[0]) {
    const s = await startSim({ host: '127.0.0.1', port: 0, seed: 1, slowdown: 0.05 });
    try {
      const args = parseArgv(doctorCommand, ['--url', s.url]);
      return await runDoctor({
        target: { url: s.url },
        resolveConfig: () => resolveBenchmarkConfig(args, {}, process.cwd()),
        env: {},
        cwd: process.cwd(),
        onStep: (step) => {
          if (step.stage === 'non-streaming') s.setFailures(failures);
        },
      });
    } finally {
      await s.close();
    }
  }

  it('an error object inside a 200 stream fails streaming with the server message', async () => {
    const report = await streamFailure({ errorObject: 1 });
    expect(report.exitCode).toBe(ExitCode.DOCTOR_STREAMING);
    const step = report.steps.at(-1)!;
    expect(step.cause).toMatch(/error object inside a 200 stream: .*simulated engine failure/);
    expect(step.fix).toMatch(/read the server's message/);
  });

  it('a malformed SSE line fails streaming as bad JSON', async () => {
    const report = await streamFailure({ malformed: 1 });
    expect(report.exitCode).toBe(ExitCode.DOCTOR_STREAMING);
    expect(report.steps.at(-1)!.cause).toMatch(/1 stream event\(s\) were not valid JSON/);
  });

  it('a stream cut mid-way fails streaming as truncated', async () => {
    const report = await streamFailure({ disconnect: 1 });
    expect(report.exitCode).toBe(ExitCode.DOCTOR_STREAMING);
    expect(report.steps.at(-1)!.cause).toMatch(/without \[DONE\]|closed the connection/);
  });

  it('empty-choices chunks pass, and conformance notes them', async () => {
    const report = await streamFailure({ emptyChoices: 1 });
    expect(report.exitCode).toBe(ExitCode.OK);
    const conformance = report.steps.find((x) => x.stage === 'conformance')!;
    expect(conformance.details.join('\n')).toMatch(/chunk\(s\) with empty choices/);
  });
});

describe('goodput doctor against a buffering proxy', () => {
  let buffering: Server;
  let url: string;
  beforeAll(async () => {
    // Answers like an OpenAI server, but holds the whole stream back and writes it at once,
    // as a proxy with response buffering on does.
    buffering = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        if (req.url === '/v1/models') {
          res.setHeader('content-type', 'application/json');
          res.end(JSON.stringify({ object: 'list', data: [{ id: 'm', object: 'model' }] }));
          return;
        }
        const parsed = JSON.parse(body) as { stream?: boolean };
        if (!parsed.stream) {
          res.setHeader('content-type', 'application/json');
          res.end(
            JSON.stringify({
              model: 'm',
              choices: [{ index: 0, message: { role: 'assistant', content: 'hi' } }],
            }),
          );
          return;
        }
        const events: string[] = [];
        for (let i = 0; i < 12; i++) {
          events.push(
            `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: ` w${i}` }, finish_reason: i === 11 ? 'length' : null }] })}\n\n`,
          );
        }
        events.push('data: [DONE]\n\n');
        setTimeout(() => {
          res.setHeader('content-type', 'text/event-stream');
          res.end(events.join(''));
        }, 250);
      });
    });
    url = await listen(buffering);
  });
  afterAll(() => new Promise<void>((resolve) => buffering.close(() => resolve())));

  it('names the buffering and the fix', async () => {
    const r = await doctor(['--url', url]);
    expect(r.code).toBe(ExitCode.DOCTOR_STREAMING);
    expect(r.out).toMatch(/cause: the stream was buffered: 12 content chunks arrived within/);
    expect(r.out).toMatch(/fix: turn off response buffering/);
  });
});

describe('goodput doctor --progressive', () => {
  it('runs 5, 30 and 100 requests and passes', async () => {
    const r = await doctor([
      '--url',
      sim.url,
      '--progressive',
      '--concurrency',
      '8',
      '--prompt-tokens',
      '32',
      '--max-tokens',
      '8',
    ]);
    expect(r.code).toBe(ExitCode.OK);
    expect(r.out).toMatch(/✓ Progressive load: 5 requests/);
    expect(r.out).toMatch(/✓ Progressive load: 30 requests/);
    expect(r.out).toMatch(/✓ Progressive load: 100 requests/);
    expect(r.out).toMatch(/attainment/);
  });

  it('stops at the first stage that fails: an SLO nobody meets fails the 100-request stage', async () => {
    const r = await doctor([
      '--url',
      sim.url,
      '--progressive',
      '--concurrency',
      '8',
      '--prompt-tokens',
      '32',
      '--max-tokens',
      '8',
      '--slo',
      'ttft=0.001',
    ]);
    expect(r.code).toBe(ExitCode.DOCTOR_LOAD);
    expect(r.out).toMatch(/✗ Progressive load: 100 requests/);
    expect(r.out).toMatch(/fix: the endpoint misses the SLO at this load/);
  });
});

describe('goodput doctor through a proxy named in the environment', () => {
  it('an unreachable proxy fails reachability and names the proxy and NO_PROXY', async () => {
    const s = createServer();
    const dead = await listen(s);
    await new Promise((resolve) => s.close(resolve));
    // The target must not be loopback (loopback never goes through a proxy); the proxy is
    // a loopback port with nothing listening, so no traffic leaves the machine.
    const r = await doctor(['--url', 'http://vllm.example.internal:8000', '--model', 'm'], {
      HTTP_PROXY: dead,
    });
    expect(r.code).toBe(ExitCode.DOCTOR_REACHABILITY);
    expect(r.out).toMatch(/requests go through the proxy http:\/\/127\.0\.0\.1:\d+/);
    expect(r.out).toMatch(/fix: the proxy http:\/\/127\.0\.0\.1:\d+ is not reachable: .*NO_PROXY/);
  });
});
