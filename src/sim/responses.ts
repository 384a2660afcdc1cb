/**
 * OpenAI Responses API bodies (`POST /v1/responses`) as the simulator writes them: typed SSE
 * events (`event: <type>` + `data: {type, sequence_number, …}`, no `[DONE]`), reasoning as
 * `response.reasoning_text.delta` in a reasoning item, the answer as
 * `response.output_text.delta` in a message item, and `response.completed` (or
 * `response.incomplete` at max_output_tokens) carrying the usage; and the non-streamed body.
 *
 * @module
 */

import type { Usage } from './sse.js';

/** The usage of a Responses body, from the chat-style counts. */
export function responsesUsage(usage: Usage, reasoningTokens: number): Record<string, unknown> {
  return {
    input_tokens: usage.prompt_tokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: usage.completion_tokens,
    output_tokens_details: { reasoning_tokens: reasoningTokens },
    total_tokens: usage.total_tokens,
  };
}

/** Writes the events of one streamed response, numbering them. */
export class ResponsesStream {
  private seq = 0;
  private phase: 'none' | 'reasoning' | 'answer' | 'call' = 'none';
  private index = -1;
  /** The function call being streamed (tool-call replies), and its arguments so far. */
  private call: { id: string; name: string } | undefined;
  private args = '';

  constructor(
    private readonly id: string,
    private readonly model: string,
    private readonly created: number,
  ) {}

  private event(type: string, body: Record<string, unknown>): string {
    return `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: this.seq++, ...body })}\n\n`;
  }

  private response(status: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
    return {
      id: this.id,
      object: 'response',
      created_at: this.created,
      status,
      model: this.model,
      output: [],
      ...extra,
    };
  }

  /** `response.created` and `response.in_progress`. */
  start(): string {
    return (
      this.event('response.created', { response: this.response('in_progress') }) +
      this.event('response.in_progress', { response: this.response('in_progress') })
    );
  }

  private itemId(): string {
    const kind = this.phase === 'reasoning' ? 'rs' : this.phase === 'call' ? 'fc' : 'msg';
    return `${kind}_${this.id}_${this.index}`;
  }

  private callItem(status: string): Record<string, unknown> {
    const c = this.call!;
    const item_id = this.itemId();
    return { id: item_id, type: 'function_call', status, arguments: this.args, call_id: c.id, name: c.name };
  }

  /** Closes the open item, if any. */
  private closeItem(): string {
    if (this.phase === 'none') return '';
    const item_id = this.itemId();
    if (this.phase === 'call') {
      return (
        this.event('response.function_call_arguments.done', {
          item_id,
          output_index: this.index,
          arguments: this.args,
        }) +
        this.event('response.output_item.done', {
          output_index: this.index,
          item: this.callItem('completed'),
        })
      );
    }
    if (this.phase === 'answer') {
      return (
        this.event('response.output_text.done', { item_id, output_index: this.index, content_index: 0 }) +
        this.event('response.output_item.done', {
          output_index: this.index,
          item: { id: item_id, type: 'message', status: 'completed', role: 'assistant' },
        })
      );
    }
    return this.event('response.output_item.done', {
      output_index: this.index,
      item: { id: item_id, type: 'reasoning', summary: [] },
    });
  }

  /**
   * One token: a reasoning delta, an output-text delta, or (with `call`, a tool-call reply) a
   * function call's arguments delta, opening its item first when the phase changes.
   */
  token(text: string, reasoning: boolean, call?: { id: string; name: string }): string {
    const phase = reasoning ? 'reasoning' : call ? 'call' : 'answer';
    let out = '';
    if (phase === 'call') {
      if (this.phase !== 'call') {
        out += this.closeItem();
        this.phase = 'call';
        this.call = call;
        this.index++;
        out += this.event('response.output_item.added', {
          output_index: this.index,
          item: this.callItem('in_progress'),
        });
      }
      this.args += text;
      return (
        out +
        this.event('response.function_call_arguments.delta', {
          item_id: this.itemId(),
          output_index: this.index,
          delta: text,
        })
      );
    }
    if (this.phase !== phase) {
      out += this.closeItem();
      this.phase = phase;
      this.index++;
      const id = this.itemId();
      out += this.event('response.output_item.added', {
        output_index: this.index,
        item: reasoning
          ? { id, type: 'reasoning', summary: [] }
          : { id, type: 'message', status: 'in_progress', role: 'assistant', content: [] },
      });
      if (!reasoning) {
        out += this.event('response.content_part.added', {
          item_id: id,
          output_index: this.index,
          content_index: 0,
          part: { type: 'output_text', text: '', annotations: [] },
        });
      }
    }
    return (
      out +
      this.event(reasoning ? 'response.reasoning_text.delta' : 'response.output_text.delta', {
        item_id: this.itemId(),
        output_index: this.index,
        content_index: 0,
        delta: text,
      })
    );
  }

  /** The end: `response.completed`, or `response.incomplete` when max_output_tokens cut it. */
  finish(finishReason: string, usage: Record<string, unknown>): string {
    const complete = finishReason !== 'length';
    return (
      this.closeItem() +
      this.event(complete ? 'response.completed' : 'response.incomplete', {
        response: this.response(complete ? 'completed' : 'incomplete', {
          usage,
          ...(complete ? {} : { incomplete_details: { reason: 'max_output_tokens' } }),
        }),
      })
    );
  }

  /** An `error` event (generation failed mid-stream). */
  error(message: string): string {
    return this.event('error', { code: 'server_error', message, param: null });
  }
}

/** A complete non-streamed Responses body. */
export function responsesBody(
  id: string,
  model: string,
  created: number,
  reasoningText: string,
  answerText: string,
  finishReason: string,
  usage: Record<string, unknown>,
  toolCall?: { id: string; name: string },
): Record<string, unknown> {
  const output: unknown[] = [];
  if (reasoningText !== '') {
    output.push({
      id: `rs_${id}`,
      type: 'reasoning',
      summary: [],
      content: [{ type: 'reasoning_text', text: reasoningText }],
    });
  }
  if (toolCall) {
    output.push({
      id: `fc_${id}`,
      type: 'function_call',
      status: 'completed',
      arguments: answerText,
      call_id: toolCall.id,
      name: toolCall.name,
    });
  } else if (answerText !== '') {
    output.push({
      id: `msg_${id}`,
      type: 'message',
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: answerText, annotations: [] }],
    });
  }
  const complete = finishReason !== 'length';
  return {
    id,
    object: 'response',
    created_at: created,
    status: complete ? 'completed' : 'incomplete',
    ...(complete ? {} : { incomplete_details: { reason: 'max_output_tokens' } }),
    model,
    output,
    usage,
  };
}
