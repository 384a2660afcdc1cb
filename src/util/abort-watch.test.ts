import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { unwatchAbort, watchAbort } from './abort-watch.js';

describe('watchAbort', () => {
  it('calls every watcher once when the signal aborts, in the order they watched', () => {
    const stop = new AbortController();
    const calls: string[] = [];
    watchAbort(stop.signal, () => calls.push('a'));
    watchAbort(stop.signal, () => calls.push('b'));
    stop.abort();
    stop.abort();
    expect(calls).toEqual(['a', 'b']);
  });

  it('does not call a watcher that stopped watching', () => {
    const stop = new AbortController();
    const calls: string[] = [];
    const a = () => calls.push('a');
    watchAbort(stop.signal, a);
    watchAbort(stop.signal, () => calls.push('b'));
    unwatchAbort(stop.signal, a);
    stop.abort();
    expect(calls).toEqual(['b']);
  });

  it('adds one listener to the signal however many watch it', () => {
    const stop = new AbortController();
    const fns = Array.from({ length: 100 }, () => () => undefined);
    for (const f of fns) watchAbort(stop.signal, f);
    expect(getEventListeners(stop.signal, 'abort')).toHaveLength(1);
    for (const f of fns) unwatchAbort(stop.signal, f);
    expect(getEventListeners(stop.signal, 'abort')).toHaveLength(1);
  });

  it('keeps signals apart, and a watch after the abort is never called (as a listener would not be)', () => {
    const one = new AbortController();
    const two = new AbortController();
    const calls: string[] = [];
    watchAbort(one.signal, () => calls.push('one'));
    watchAbort(two.signal, () => calls.push('two'));
    two.abort();
    expect(calls).toEqual(['two']);
    watchAbort(two.signal, () => calls.push('late'));
    one.abort();
    expect(calls).toEqual(['two', 'one']);
  });

  it('a watcher may unwatch another while the abort calls them', () => {
    const stop = new AbortController();
    const calls: string[] = [];
    const b = () => calls.push('b');
    watchAbort(stop.signal, () => {
      calls.push('a');
      unwatchAbort(stop.signal, b);
    });
    watchAbort(stop.signal, b);
    stop.abort();
    expect(calls).toEqual(['a']);
  });
});
