import { describe, expect, it } from 'vitest';
import type { WorkItem } from '../types.js';
import { requestBody } from './request.js';

const sampling = { temperature: 0, maxTokens: 16, ignoreEos: false };
const item = (over: Partial<WorkItem>): WorkItem => ({
  index: 0,
  id: 'r-000001',
  warmup: false,
  messages: [{ role: 'user', content: 'hi' }],
  promptTokens: 1,
  maxTokens: 16,
  ...over,
});

describe("a traffic class's request", () => {
  it.each(['chat', 'completions', 'responses'] as const)(
    '%s: sends its priority and its model, and nothing of either without a class',
    (api) => {
      const body = JSON.parse(
        requestBody(api, 'base-model', item({ class: 'chat', priority: -2, model: 'lora-a' }), sampling),
      );
      expect(body.priority).toBe(-2);
      expect(body.model).toBe('lora-a');
      const plain = JSON.parse(requestBody(api, 'base-model', item({}), sampling));
      expect(plain).not.toHaveProperty('priority');
      expect(plain.model).toBe('base-model');
    },
  );

  it('lets --extra-body override the priority, as it overrides every field', () => {
    const body = JSON.parse(requestBody('chat', 'm', item({ priority: 1 }), sampling, { priority: 5 }));
    expect(body.priority).toBe(5);
  });
});
