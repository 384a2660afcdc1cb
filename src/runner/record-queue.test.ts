import { describe, expect, it } from 'vitest';
import type { RequestRecord } from '../types.js';
import { RECORD_GAP_MS, RecordQueue } from './record-queue.js';

/** A queue on a clock the test moves by hand, and the ids it handed on, in order. */
function queueAt(startMs: number, maxHeld?: number) {
  let now = startMs;
  const delivered: string[] = [];
  const queue = new RecordQueue(
    (r) => delivered.push(r.id),
    () => now,
    maxHeld,
  );
  return {
    queue,
    delivered,
    setNow: (ms: number) => {
      now = ms;
    },
  };
}

const record = (id: string) => ({ id }) as RequestRecord;

describe('RecordQueue', () => {
  it('hands records on at once when nothing is held back (closed loop, virtual time)', () => {
    const { queue, delivered } = queueAt(100);
    queue.push(record('a'));
    queue.push(record('b'));
    expect(delivered).toEqual(['a', 'b']);
    expect(queue.size).toBe(0);
  });

  it('holds a record that ends just before a send and hands it on in the gap after it', () => {
    const { queue, delivered, setNow } = queueAt(10);
    queue.deliverUntil(10.1); // the next send is 0.1 ms away: no room
    queue.push(record('a'));
    queue.push(record('b'));
    expect(delivered).toEqual([]);
    expect(queue.size).toBe(2);
    // After the send, the next one is 2 ms away: both go, in the order they ended.
    setNow(10.15);
    queue.deliverUntil(12.15);
    expect(delivered).toEqual(['a', 'b']);
  });

  it('hands a record on at once while the next send is far enough away, and only while the queue is empty', () => {
    const { queue, delivered, setNow } = queueAt(0);
    queue.deliverUntil(5);
    queue.push(record('a'));
    expect(delivered).toEqual(['a']);
    setNow(5 - RECORD_GAP_MS / 2);
    queue.push(record('b'));
    expect(delivered).toEqual(['a']);
    // The next send moved on but 'b' still waits: a later record must not overtake it.
    setNow(5.01);
    queue.deliverUntil(5.01);
    queue.push(record('c'));
    expect(delivered).toEqual(['a']);
    setNow(5.02);
    queue.deliverUntil(9);
    expect(delivered).toEqual(['a', 'b', 'c']);
  });

  it('stops at the next send when the gap runs out mid-way', () => {
    const delivered: string[] = [];
    let clock = 0;
    // Each hand-on costs 1 ms of the clock: the gap before a send at 1.1 has room for one.
    const queue = new RecordQueue(
      (r) => {
        delivered.push(r.id);
        clock += 1;
      },
      () => clock,
    );
    queue.deliverUntil(0);
    for (const id of ['x', 'y', 'z']) queue.push(record(id));
    queue.deliverUntil(1.1);
    expect(delivered).toEqual(['x']);
    expect(queue.size).toBe(2);
  });

  it('keeps at most maxHeld records waiting when the loop stays behind', () => {
    const { queue, delivered } = queueAt(50, 3);
    queue.deliverUntil(40); // behind schedule: never room
    for (let i = 0; i < 10; i++) queue.push(record(`r${i}`));
    expect(queue.size).toBe(3);
    expect(delivered).toEqual(['r0', 'r1', 'r2', 'r3', 'r4', 'r5', 'r6']);
  });

  it('release hands every held record on and lets later ones through at once', () => {
    const { queue, delivered } = queueAt(50);
    queue.deliverUntil(40);
    for (let i = 0; i < 2500; i++) queue.push(record(`r${i}`));
    expect(queue.size).toBe(32);
    queue.release();
    expect(queue.size).toBe(0);
    expect(delivered).toHaveLength(2500);
    expect(delivered[0]).toBe('r0');
    expect(delivered[2499]).toBe('r2499');
    queue.push(record('late'));
    expect(delivered.at(-1)).toBe('late');
  });
});
