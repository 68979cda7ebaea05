/**
 * Fixtures for the dialect adapter tests (Responses, Anthropic Messages): canonical chat chunks,
 * the completion a non-streaming call would return for them, and a loopback server that replays
 * them through an adapter so that a vendor's real SDK client can read the result.
 */
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { formatSse, type SseEvent } from "../gateway/adapters/sse.js";
import { HttpError } from "../gateway/errors.js";
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionChunkChoice,
  ToolCall,
} from "../types/chat.js";

/** The fixed id, time and model of every fixture, in the key order an upstream sends them. */
function envelope<O extends string>(object: O) {
  return { id: "chatcmpl-1", object, created: 1_700_000_000, model: "qwen3-8b" };
}

/** A chunk carrying one delta for choice 0. */
export function chunk(
  delta: ChatCompletionChunkChoice["delta"],
  finish: string | null = null,
  extra: Partial<ChatCompletionChunkChoice> = {},
): ChatCompletionChunk {
  return {
    ...envelope("chat.completion.chunk"),
    choices: [{ index: 0, delta, finish_reason: finish, ...extra }],
  };
}

/** The closing usage chunk (`stream_options.include_usage`): no choices, only the counts. */
export function usageChunk(prompt: number, completion: number, extra = {}): ChatCompletionChunk {
  return {
    ...envelope("chat.completion.chunk"),
    choices: [],
    usage: {
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: prompt + completion,
      ...extra,
    },
  };
}

/**
 * What a non-streaming call would have returned for the same chunks. Written out here rather than
 * taken from the gateway's ChatStreamAccumulator so that the adapters are checked against an
 * independent fold, which also keeps `stop_reason` (the accumulator leaves it out).
 */
export function fold(chunks: ChatCompletionChunk[]): ChatCompletion {
  let content: string | null = null;
  let reasoning: string | null = null;
  let finish: string | null = null;
  let stopReason: unknown = null;
  const calls = new Map<number, ToolCall>();
  let usage: ChatCompletion["usage"];
  for (const c of chunks) {
    if (c.usage) usage = c.usage;
    for (const ch of c.choices) {
      const d = ch.delta;
      if (typeof d.content === "string") content = (content ?? "") + d.content;
      const r = d.reasoning_content ?? (d as { reasoning?: string }).reasoning;
      if (typeof r === "string") reasoning = (reasoning ?? "") + r;
      for (const tc of d.tool_calls ?? []) {
        const cur = calls.get(tc.index) ?? {
          id: "",
          type: "function" as const,
          function: { name: "", arguments: "" },
        };
        if (tc.id) cur.id = tc.id;
        if (tc.function?.name) cur.function.name += tc.function.name;
        if (tc.function?.arguments) cur.function.arguments += tc.function.arguments;
        calls.set(tc.index, cur);
      }
      if (ch.finish_reason) finish = ch.finish_reason;
      if (ch.stop_reason !== undefined) stopReason = ch.stop_reason;
    }
  }
  const message: ChatCompletion["choices"][number]["message"] = { role: "assistant", content };
  if (reasoning !== null) message.reasoning_content = reasoning;
  if (calls.size > 0) message.tool_calls = [...calls.values()];
  return {
    ...envelope("chat.completion"),
    choices: [{ index: 0, message, finish_reason: finish, stop_reason: stopReason }],
    ...(usage ? { usage } : {}),
  };
}

/** Reasoning, then text: both dialects open a reasoning block/item before the text one. */
export const reasoningChunks = (): ChatCompletionChunk[] => [
  chunk({ role: "assistant", content: "" }),
  chunk({ reasoning_content: "The user " }),
  chunk({ reasoning_content: "greets." }),
  chunk({ content: "Hi" }),
  chunk({ content: "!" }),
  chunk({}, "stop"),
  usageChunk(10, 6, { completion_tokens_details: { reasoning_tokens: 4 } }),
];

/** Text, then two parallel weather calls whose arguments arrive in fragments. */
export const toolCallChunks = (
  usage: ChatCompletionChunk = usageChunk(30, 25),
): ChatCompletionChunk[] => [
  chunk({ role: "assistant", content: "" }),
  chunk({ content: "Checking both." }),
  chunk({
    tool_calls: [
      { index: 0, id: "call_a", type: "function", function: { name: "weather", arguments: "" } },
    ],
  }),
  chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }),
  chunk({ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }),
  chunk({
    tool_calls: [
      {
        index: 1,
        id: "call_b",
        type: "function",
        function: { name: "weather", arguments: '{"ci' },
      },
    ],
  }),
  chunk({ tool_calls: [{ index: 1, function: { arguments: 'ty":"Rome"}' } }] }),
  chunk({}, "tool_calls"),
  usage,
];

/** A dialect's stream translator, as the gateway drives it. */
export interface StreamTranslator {
  push(chunk: ChatCompletionChunk): SseEvent[];
  finish(): SseEvent[];
}

/** Every event `translator` sends for `chunks`, the closing ones included. */
export function translateAll(
  translator: StreamTranslator,
  chunks: ChatCompletionChunk[],
): SseEvent[] {
  return [...chunks.flatMap((c) => translator.push(c)), ...translator.finish()];
}

/** Asserts that `fn` throws the gateway's 400 with a message naming every fragment. */
export function expectHttp400(fn: () => unknown, ...fragments: string[]): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof HttpError, `expected HttpError, got ${String(err)}`);
    assert.equal(err.status, 400);
    for (const f of fragments) assert.ok(err.message.includes(f), `"${err.message}" lacks "${f}"`);
    return true;
  });
}

/** How the replay server answers, as the gateway's route for one dialect would. */
export interface ReplayDialect {
  /** Reads the request as the gateway does first; throws on a bad request. */
  check(request: unknown): void;
  /** The events of the streamed answer (`"stream": true`). */
  stream(request: unknown): Iterable<SseEvent>;
  /** The JSON body of the non-streaming answer. */
  complete(request: unknown): unknown;
}

/**
 * Runs `fn` with the base URL of a loopback server that answers every request through `dialect`,
 * and closes the server afterwards.
 */
export async function withReplayServer(
  dialect: ReplayDialect,
  fn: (baseUrl: string) => Promise<void>,
): Promise<void> {
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => {
      body += c.toString("utf8");
    });
    req.on("end", () => {
      const request = JSON.parse(body) as { stream?: boolean };
      dialect.check(request);
      if (request.stream) {
        res.writeHead(200, { "content-type": "text/event-stream" });
        for (const ev of dialect.stream(request)) res.write(formatSse(ev));
        res.end();
      } else {
        const out = dialect.complete(request);
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(out));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  try {
    await fn(`http://127.0.0.1:${port}`);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}
