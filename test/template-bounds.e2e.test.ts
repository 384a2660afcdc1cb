/**
 * A chat template is code from outside: one that loops without end, or builds a huge output,
 * is a usage error within a few seconds (it killed V8, or hung through SIGTERM and Ctrl-C),
 * and no request is sent.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { probeChatTemplate } from '../src/workload/template-probe.js';
import { runCliInProcess } from './helpers/cli.js';
import { json, startLoopback } from './helpers/loopback.js';
import { CHATML_TEMPLATE, writeTokenizerFolder } from './helpers/tokenizer-fixture.js';

const dir = mkdtempSync(join(tmpdir(), 'goodput-template-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('probeChatTemplate', () => {
  it('a real chat template passes; one that raises on a role passes too (its own answer)', async () => {
    await probeChatTemplate(CHATML_TEMPLATE, 'chatml');
    await probeChatTemplate("{{ raise_exception('system role not supported') }}", 'strict');
  });

  it.each([
    [
      'a billion-step loop',
      '{% for i in range(1000000000) %}x{% endfor %}',
      /did not finish within 1 s|used more than/,
    ],
    [
      'two nested loops',
      '{% for i in range(100000) %}{% for j in range(100000) %}x{% endfor %}{% endfor %}',
      /did not finish within 1 s|used more than/,
    ],
    // The bound scaled down a thousandfold (1 KiB), so that the loop is short.
    [
      'a huge output',
      '{% for i in range(200) %}xxxxxxxxxx{% endfor %}',
      /wrote 2000 characters \(more than 1024\)/,
    ],
  ])('%s is refused within its bound', async (_name, template, message) => {
    const t0 = Date.now();
    await expect(
      probeChatTemplate(template, 'evil', {}, { timeoutMs: 1000, maxChars: 1024 }),
    ).rejects.toThrow(message);
    expect(Date.now() - t0).toBeLessThan(10_000);
  });
});

describe('run with a looping template in the model folder', () => {
  it('exit 2 naming the template, no request sent', async () => {
    writeTokenizerFolder(dir, 'evil-model', 'wordlevel-chatml', {
      chatTemplate: '{% for i in range(100000) %}{% for j in range(100000) %}x{% endfor %}{% endfor %}',
    });
    const server = await startLoopback((_q, res) => json(res, 500, {}));
    try {
      const r = await runCliInProcess(
        ['run', '--url', server.url, '--model', 'm', '--requests', '2', '--tokenizer', 'evil-model'],
        { cwd: dir },
      );
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/the chat template from .*tokenizer_config\.json did not finish within 5 s/);
      expect(server.requests.filter((q) => q.url.includes('/chat/completions'))).toEqual([]);
    } finally {
      await server.close();
    }
  }, 30_000);
});
