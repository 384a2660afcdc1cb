/** The daily token budget's bound on one probe request, for each shape of workload. */
import { expect, test } from 'vitest';
import { worstRequestTokens } from './budget.js';

test.each([
  // promptTokens, maxTokens, workload, bound
  { p: 128, m: 32, w: {}, bound: 160 },
  { p: 100, m: 10, w: { promptTokensRange: 0.5 }, bound: 160 },
  { p: 100, m: 10, w: { systemPromptTokens: 40 }, bound: 150 },
  // The 3rd turn carries turns 1 and 2 and the two replies: 100 + 2 × (20 + 10), plus its own reply.
  { p: 100, m: 10, w: { sessions: { turns: { min: 1, max: 3 }, turnTokens: 20 } }, bound: 170 },
  // Later turns default to the first turn's length.
  { p: 100, m: 10, w: { sessions: { turns: { min: 2, max: 2 } } }, bound: 220 },
  { p: 100, m: 10, w: { sessions: {} }, bound: 110 },
])('worstRequestTokens($p, $m, $w) = $bound', ({ p, m, w, bound }) => {
  expect(worstRequestTokens(p, m, w)).toBe(bound);
});
