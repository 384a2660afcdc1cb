import { describe, expect, it } from 'vitest';
import { streamed } from '../../../test/fixtures/records.js';
import type { LoadSpec, RequestRecord, WorkItem } from '../../types.js';
import { createWorkload, Part } from '../../workload/index.js';
import { runLoad } from '../load.js';
import { RunClock } from '../timer.js';

const classes = [
  { name: 'chat', share: 0.7 },
  { name: 'batch', share: 0.3 },
];

describe('the closed loop with traffic classes', () => {
  it("gives each of the run's users its dealt class, however the users are split over loops", async () => {
    const users = 10;
    const workload = createWorkload(
      { kind: 'synthetic', api: 'chat', promptTokens: 8, maxTokens: 2, tokenizer: 'o200k_base', classes },
      { seed: 1, warmup: 0, users },
    );
    const dealt = Array.from({ length: users }, (_, u) => classes[workload.userClass!(u)]!.name);
    expect(dealt.filter((c) => c === 'chat').length).toBe(7);
    // Every user's first request is held until all users have sent one: the first `users`
    // requests are one per user, so their classes are the users' classes.
    const first: WorkItem[] = [];
    let release!: () => void;
    const allSent = new Promise<void>((resolve) => {
      release = resolve;
    });
    const send = async (item: WorkItem): Promise<RequestRecord> => {
      if (first.length < users) first.push(item);
      if (first.length === users) release();
      await allSent;
      return { ...streamed({ index: item.index }), class: item.class! };
    };
    const loops = [Part.whole.sub(0, 3), Part.whole.sub(1, 3), Part.whole.sub(2, 3)];
    await Promise.all(
      loops.map((part) => {
        const load: LoadSpec = {
          mode: 'closed',
          concurrency: part.share(users),
          requests: 2 * part.share(users),
          warmup: 0,
          timeoutMs: 10_000,
          maxRetries: 0,
        };
        return runLoad({
          load,
          workItem: (i, cls) => workload.item(i, cls),
          send,
          clock: new RunClock(),
          onRecord: () => undefined,
          stageUsers: part,
          userClass: workload.userClass!,
        });
      }),
    );
    expect(first).toHaveLength(users);
    const sentBy = (c: string) => first.filter((it) => it.class === c).length;
    expect(sentBy('chat')).toBe(7);
    expect(sentBy('batch')).toBe(3);
  });
});
