/**
 * A minimal SSE reader for the simulator's own tests (node's fetch; the goodput client is
 * tested separately). Collects each `data:` payload with its arrival time.
 *
 * @module
 */

export interface StreamResult {
  status: number;
  headers: Headers;
  events: { data: string; tMs: number }[];
  /** Parsed JSON events (unparseable ones skipped). */
  json: Record<string, unknown>[];
  sentMs: number;
  /** Arrival of the first event carrying content (or text). */
  firstTokenMs?: number;
  endMs: number;
  /** Concatenated content/text. */
  text: string;
  /** Content chunks. */
  contentChunks: number;
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  finishReason?: string;
  done: boolean;
  error?: string;
}

/** POST a streaming request and read the whole stream (bounded by timeoutMs). */
export async function streamRequest(
  url: string,
  body: Record<string, unknown>,
  opts: { key?: string; timeoutMs?: number; abortAfterTokens?: number } = {},
): Promise<StreamResult> {
  const ctrl = new AbortController();
  const timer = setTimeout(() => ctrl.abort(), opts.timeoutMs ?? 20_000);
  const sentMs = performance.now();
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  const r: StreamResult = {
    status: 0,
    headers: new Headers(),
    events: [],
    json: [],
    sentMs,
    endMs: 0,
    text: '',
    contentChunks: 0,
    done: false,
  };
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ stream: true, ...body }),
      signal: ctrl.signal,
    });
    r.status = res.status;
    r.headers = res.headers;
    const reader = res.body!.getReader();
    const dec = new TextDecoder();
    let buf = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      const t = performance.now();
      buf += dec.decode(value, { stream: true });
      let cut = buf.indexOf('\n\n');
      while (cut >= 0) {
        const block = buf.slice(0, cut);
        buf = buf.slice(cut + 2);
        cut = buf.indexOf('\n\n');
        for (const line of block.split('\n')) {
          if (!line.startsWith('data: ')) continue;
          const data = line.slice(6);
          r.events.push({ data, tMs: t });
          if (data === '[DONE]') {
            r.done = true;
            continue;
          }
          let obj: Record<string, unknown>;
          try {
            obj = JSON.parse(data);
          } catch {
            continue;
          }
          r.json.push(obj);
          if (obj.usage) r.usage = obj.usage as StreamResult['usage'];
          const choice = (obj.choices as Record<string, unknown>[] | undefined)?.[0];
          if (!choice) continue;
          const piece = ((choice.delta as { content?: string } | undefined)?.content ??
            choice.text ??
            '') as string;
          if (piece !== '') {
            r.firstTokenMs ??= t;
            r.text += piece;
            r.contentChunks++;
            if (opts.abortAfterTokens !== undefined && r.contentChunks >= opts.abortAfterTokens) {
              ctrl.abort();
              r.endMs = performance.now();
              return r;
            }
          }
          if (choice.finish_reason) r.finishReason = choice.finish_reason as string;
        }
      }
    }
  } catch (e) {
    r.error = (e as Error).message;
  } finally {
    clearTimeout(timer);
  }
  r.endMs = performance.now();
  return r;
}
