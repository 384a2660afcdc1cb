import { describe, expect, test } from 'vitest';
import { GoodputError } from '../../errors.js';
import { benchmarkConfig } from '../config.js';
import { checkWorkers } from './config.js';

function refusal(fn: () => void): GoodputError | undefined {
  try {
    fn();
  } catch (e) {
    return e as GoodputError;
  }
  return undefined;
}

describe('checkWorkers', () => {
  test.each([
    [
      'virtual time',
      benchmarkConfig({ sim: { timeMode: 'virtual' }, load: { workers: 2 } }),
      'drop --workers',
    ],
  ])('refuses more than one worker with %s, with a hint', (_, config, hint) => {
    const err = refusal(() => checkWorkers(config));
    expect(err).toBeInstanceOf(GoodputError);
    expect(err!.code).toBe('E_USAGE');
    expect(err!.hint).toContain(hint);
  });

  test.each([
    benchmarkConfig({ load: { workers: 4 } }),
    benchmarkConfig({ sim: { timeMode: 'virtual' }, load: { workers: 1 } }),
    benchmarkConfig({ load: { sessions: { concurrency: 4 } } }),
    benchmarkConfig({ load: { workers: 3, sessions: { concurrency: 4 } } }),
  ])('accepts %j', (config) => {
    expect(() => checkWorkers(config)).not.toThrow();
  });
});
