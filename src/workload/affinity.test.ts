import { describe, expect, it } from 'vitest';
import { conversationAffinityId } from './affinity.js';

const UUID_V8 = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('conversationAffinityId', () => {
  it('is UUID-shaped (version 8), the same on every call, distinct per conversation and per seed', () => {
    const ids = Array.from({ length: 500 }, (_, s) => conversationAffinityId(42, `s-${s}`));
    for (const id of ids) expect(id).toMatch(UUID_V8);
    expect(new Set(ids).size).toBe(ids.length);
    expect(conversationAffinityId(42, 's-7')).toBe(ids[7]);
    expect(conversationAffinityId('42', 's-7')).toBe(ids[7]);
    expect(conversationAffinityId(43, 's-7')).not.toBe(ids[7]);
    expect(conversationAffinityId(42, 'w-7')).not.toBe(ids[7]);
  });
});
