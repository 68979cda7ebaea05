import assert from "node:assert/strict";
import { test } from "node:test";
import Anthropic from "@anthropic-ai/sdk";
import {
  chunk,
  expectHttp400,
  fold,
  reasoningChunks,
  toolCallChunks,
  translateAll,
  usageChunk,
  withReplayServer,
} from "../../testing/sse-replay.js";
import {
  type ChatCompletion,
  type ChatCompletionChunk,
  ChatCompletionRequestSchema,
} from "../../types/chat.js";
import {
  type AnthropicMessage,
  AnthropicStreamTranslator,
  anthropicErrorBody,
  anthropicRequestToChat,
  chatToAnthropicResponse,
  chatUsageToAnthropic,
} from "./anthropic/index.js";
import type { SseEvent } from "./sse.js";

// ---------------------------------------------------------------------------------------------
// helpers
// ---------------------------------------------------------------------------------------------

const translateStream = (chunks: ChatCompletionChunk[], request: unknown, messageId = "msg_1") =>
  translateAll(new AnthropicStreamTranslator(request, { messageId }), chunks);

type Ev = { type: string; [k: string]: unknown };
const data = (e: SseEvent) => e.data as Ev;
/** Event types, with the delta kind for content_block_delta. */
const types = (events: SseEvent[]) =>
  events.map((e) => {
    const d = data(e);
    return d.type === "content_block_delta"
      ? `delta:${(d.delta as { type: string }).type}`
      : d.type;
  });

function assertWellFormed(events: SseEvent[]): void {
  for (const e of events) assert.equal(e.event, data(e).type, "SSE event name equals data.type");
  assert.equal(data(events[0]!).type, "message_start");
  assert.equal(data(events.at(-1)!).type, "message_stop");
  // Blocks open and close in order, one at a time, with contiguous indices.
  let open: number | null = null;
  let next = 0;
  for (const e of events) {
    const d = data(e);
    if (d.type === "content_block_start") {
      assert.equal(open, null, "a block starts only after the previous one stopped");
      assert.equal(d.index, next++);
      open = d.index as number;
    } else if (d.type === "content_block_delta") {
      assert.equal(d.index, open);
    } else if (d.type === "content_block_stop") {
      assert.equal(d.index, open);
      open = null;
    }
  }
  assert.equal(open, null);
}

// ---------------------------------------------------------------------------------------------
// request translation
// ---------------------------------------------------------------------------------------------

test("basic request: system, sampling, stop sequences, tolerated extras", () => {
  const chat = anthropicRequestToChat({
    model: "claude-sonnet-4-5",
    max_tokens: 1024,
    system: "You are terse.",
    messages: [{ role: "user", content: "Hello" }],
    stop_sequences: ["\n\nHuman:"],
    temperature: 0.7,
    top_p: 0.95,
    top_k: 40,
    metadata: { user_id: "u1" },
    service_tier: "auto",
  });
  assert.deepEqual(chat, {
    model: "claude-sonnet-4-5",
    max_tokens: 1024,
    messages: [
      { role: "system", content: "You are terse." },
      { role: "user", content: "Hello" },
    ],
    stop: ["\n\nHuman:"],
    temperature: 0.7,
    top_p: 0.95,
    top_k: 40,
  });
  ChatCompletionRequestSchema.parse(chat);
});

test("system as text blocks, user blocks with images and documents", () => {
  const chat = anthropicRequestToChat({
    model: "m",
    max_tokens: 10,
    system: [
      { type: "text", text: "Part one.", cache_control: { type: "ephemeral" } },
      { type: "text", text: "Part two." },
    ],
    messages: [
      {
        role: "user",
        content: [
          { type: "text", text: "Look:" },
          { type: "image", source: { type: "base64", media_type: "image/png", data: "AAAA" } },
          { type: "image", source: { type: "url", url: "https://x/y.png" } },
          { type: "document", source: { type: "text", media_type: "text/plain", data: "doc" } },
        ],
      },
    ],
  });
  assert.deepEqual(chat.messages, [
    {
      role: "system",
      content: [
        { type: "text", text: "Part one." },
        { type: "text", text: "Part two." },
      ],
    },
    {
      role: "user",
      content: [
        { type: "text", text: "Look:" },
        { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } },
        { type: "image_url", image_url: { url: "https://x/y.png" } },
        { type: "text", text: "doc" },
      ],
    },
  ]);
  ChatCompletionRequestSchema.parse(chat);
});

test("tool round trip: thinking, tool_use, tool_result ordered before the user's text", () => {
  const chat = anthropicRequestToChat({
    model: "m",
    max_tokens: 100,
    tools: [
      {
        name: "weather",
        description: "Get weather",
        input_schema: { type: "object", properties: { city: { type: "string" } } },
        cache_control: { type: "ephemeral" },
      },
      { type: "custom", name: "noop", input_schema: { type: "object" } },
    ],
    tool_choice: { type: "auto", disable_parallel_tool_use: true },
    messages: [
      { role: "user", content: "Weather in Paris and Rome?" },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "Two calls.", signature: "sig" },
          { type: "redacted_thinking", data: "opaque" },
          { type: "text", text: "Checking." },
          { type: "tool_use", id: "toolu_1", name: "weather", input: { city: "Paris" } },
          { type: "tool_use", id: "toolu_2", name: "weather", input: { city: "Rome" } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "text", text: "Here you go." },
          { type: "tool_result", tool_use_id: "toolu_1", content: "18C" },
          {
            type: "tool_result",
            tool_use_id: "toolu_2",
            content: [
              { type: "text", text: "21C" },
              { type: "text", text: "sunny" },
            ],
          },
        ],
      },
      {
        role: "assistant",
        content: [{ type: "tool_use", id: "toolu_3", name: "noop", input: {} }],
      },
      {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "toolu_3", is_error: true }],
      },
    ],
  });
  assert.deepEqual(chat.tools, [
    {
      type: "function",
      function: {
        name: "weather",
        description: "Get weather",
        parameters: { type: "object", properties: { city: { type: "string" } } },
      },
    },
    { type: "function", function: { name: "noop", parameters: { type: "object" } } },
  ]);
  assert.equal(chat.tool_choice, "auto");
  assert.equal(chat.parallel_tool_calls, false);
  assert.deepEqual(chat.messages, [
    { role: "user", content: "Weather in Paris and Rome?" },
    {
      role: "assistant",
      content: "Checking.",
      reasoning_content: "Two calls.",
      tool_calls: [
        {
          id: "toolu_1",
          type: "function",
          function: { name: "weather", arguments: '{"city":"Paris"}' },
        },
        {
          id: "toolu_2",
          type: "function",
          function: { name: "weather", arguments: '{"city":"Rome"}' },
        },
      ],
    },
    { role: "tool", tool_call_id: "toolu_1", content: "18C" },
    { role: "tool", tool_call_id: "toolu_2", content: "21C\nsunny" },
    { role: "user", content: [{ type: "text", text: "Here you go." }] },
    {
      role: "assistant",
      content: null,
      tool_calls: [
        { id: "toolu_3", type: "function", function: { name: "noop", arguments: "{}" } },
      ],
    },
    { role: "tool", tool_call_id: "toolu_3", content: "Error" },
  ]);
  ChatCompletionRequestSchema.parse(chat);
});

test("tool_choice, thinking, stream and output_config mappings", () => {
  const base = { model: "m", max_tokens: 2048, messages: [{ role: "user", content: "x" }] };
  assert.equal(
    anthropicRequestToChat({ ...base, tool_choice: { type: "any" } }).tool_choice,
    "required",
  );
  assert.equal(
    anthropicRequestToChat({ ...base, tool_choice: { type: "none" } }).tool_choice,
    "none",
  );
  assert.deepEqual(
    anthropicRequestToChat({ ...base, tool_choice: { type: "tool", name: "weather" } }).tool_choice,
    { type: "function", function: { name: "weather" } },
  );
  assert.deepEqual(
    anthropicRequestToChat({ ...base, thinking: { type: "enabled", budget_tokens: 1024 } })
      .chat_template_kwargs,
    { enable_thinking: true },
  );
  assert.deepEqual(
    anthropicRequestToChat({ ...base, thinking: { type: "disabled" } }).chat_template_kwargs,
    { enable_thinking: false },
  );
  const streamed = anthropicRequestToChat({ ...base, stream: true });
  assert.equal(streamed.stream, true);
  assert.deepEqual(streamed.stream_options, { include_usage: true });
  assert.deepEqual(
    anthropicRequestToChat({
      ...base,
      output_config: { format: { type: "json_schema", schema: { type: "object" } } },
    }).response_format,
    { type: "json_schema", json_schema: { name: "output", schema: { type: "object" } } },
  );
});

test("bad requests are 400s that name the field", () => {
  const msgs = [{ role: "user", content: "x" }];
  expectHttp400(
    () => anthropicRequestToChat({ model: "m", messages: msgs }),
    "max_tokens",
    "required",
  );
  expectHttp400(
    () => anthropicRequestToChat({ model: "m", max_tokens: "many", messages: msgs }),
    "max_tokens",
    "positive integer",
  );
  expectHttp400(
    () => anthropicRequestToChat({ model: "m", max_tokens: 5 }),
    "messages",
    "required",
  );
  expectHttp400(
    () => anthropicRequestToChat({ model: "m", max_tokens: 5, messages: [] }),
    "messages",
    "at least one",
  );
  expectHttp400(() => anthropicRequestToChat({ max_tokens: 5, messages: msgs }), "model");
  expectHttp400(() => anthropicRequestToChat([]), "JSON object");
  expectHttp400(
    () =>
      anthropicRequestToChat({
        model: "m",
        max_tokens: 5,
        messages: [{ role: "bot", content: "x" }],
      }),
    "messages.0.role",
  );
  expectHttp400(
    () =>
      anthropicRequestToChat({
        model: "m",
        max_tokens: 5,
        messages: [{ role: "user", content: 7 }],
      }),
    "messages.0.content",
  );
  expectHttp400(
    () =>
      anthropicRequestToChat({
        model: "m",
        max_tokens: 5,
        messages: [{ role: "user", content: [{ type: "tool_result" }] }],
      }),
    "messages.0.content.0.tool_use_id",
  );
  expectHttp400(
    () =>
      anthropicRequestToChat({
        model: "m",
        max_tokens: 5,
        messages: [
          { role: "assistant", content: [{ type: "tool_use", id: "t", name: "f", input: "x" }] },
        ],
      }),
    "messages.0.content.0.input",
  );
  expectHttp400(
    () =>
      anthropicRequestToChat({
        model: "m",
        max_tokens: 5,
        messages: [
          {
            role: "user",
            content: [{ type: "image", source: { type: "file", file_id: "f" } }],
          },
        ],
      }),
    "messages.0.content.0.source",
  );
  expectHttp400(
    () =>
      anthropicRequestToChat({
        model: "m",
        max_tokens: 5,
        messages: [
          {
            role: "user",
            content: [
              {
                type: "document",
                source: { type: "base64", media_type: "application/pdf", data: "x" },
              },
            ],
          },
        ],
      }),
    "messages.0.content.0.source.type",
  );
  expectHttp400(
    () =>
      anthropicRequestToChat({
        model: "m",
        max_tokens: 5,
        messages: msgs,
        tools: [{ type: "web_search_20250305", name: "web_search" }],
      }),
    "tools.0.type",
  );
  expectHttp400(
    () =>
      anthropicRequestToChat({ model: "m", max_tokens: 5, messages: msgs, tools: [{ name: "f" }] }),
    "tools.0.input_schema",
  );
  expectHttp400(
    () =>
      anthropicRequestToChat({
        model: "m",
        max_tokens: 5,
        messages: msgs,
        tool_choice: { type: "x" },
      }),
    "tool_choice.type",
  );
  expectHttp400(
    () =>
      anthropicRequestToChat({
        model: "m",
        max_tokens: 5,
        messages: msgs,
        thinking: { type: "enabled" },
      }),
    "thinking.budget_tokens",
  );
});

// ---------------------------------------------------------------------------------------------
// non-streaming response
// ---------------------------------------------------------------------------------------------

const completion = (
  message: ChatCompletion["choices"][number]["message"],
  finish = "stop",
  extra: Record<string, unknown> = {},
) =>
  ({
    id: "chatcmpl-9",
    object: "chat.completion",
    created: 1_700_000_123,
    model: "qwen3-8b",
    choices: [{ index: 0, message, finish_reason: finish, ...extra }],
    usage: { prompt_tokens: 20, completion_tokens: 7, total_tokens: 27 },
  }) satisfies ChatCompletion;

test("text completion becomes an end_turn message", () => {
  const msg = chatToAnthropicResponse(
    completion({ role: "assistant", content: "Hello!" }),
    {},
    {
      messageId: "msg_a",
    },
  );
  assert.deepEqual(msg, {
    id: "msg_a",
    type: "message",
    role: "assistant",
    model: "qwen3-8b",
    content: [{ type: "text", text: "Hello!", citations: null }],
    stop_reason: "end_turn",
    stop_sequence: null,
    stop_details: null,
    container: null,
    diagnostics: null,
    usage: {
      input_tokens: 20,
      output_tokens: 7,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      cache_creation: null,
      inference_geo: null,
      output_tokens_details: null,
      server_tool_use: null,
      service_tier: null,
      speed: null,
    },
  });
});

test("reasoning and tool calls become thinking and tool_use blocks; bad JSON becomes {}", () => {
  const msg = chatToAnthropicResponse(
    completion(
      {
        role: "assistant",
        content: "Let me check.",
        reasoning_content: "Need weather.",
        tool_calls: [
          {
            id: "call_1",
            type: "function",
            function: { name: "weather", arguments: '{"city":"P"}' },
          },
          { id: "call_2", type: "function", function: { name: "broken", arguments: '{"city":' } },
          { id: "", type: "function", function: { name: "arr", arguments: "[1,2]" } },
        ],
      },
      "tool_calls",
    ),
    {},
  );
  assert.equal(msg.stop_reason, "tool_use");
  assert.deepEqual(msg.content.slice(0, 2), [
    { type: "thinking", thinking: "Need weather.", signature: "" },
    { type: "text", text: "Let me check.", citations: null },
  ]);
  const tools = msg.content.slice(2);
  assert.deepEqual(tools.slice(0, 2), [
    {
      type: "tool_use",
      id: "call_1",
      name: "weather",
      input: { city: "P" },
      caller: { type: "direct" },
    },
    { type: "tool_use", id: "call_2", name: "broken", input: {}, caller: { type: "direct" } },
  ]);
  const arr = tools[2];
  assert.ok(arr?.type === "tool_use" && arr.id.startsWith("toolu_"));
  assert.deepEqual(arr.type === "tool_use" && arr.input, {});
});

test("finish reasons map to stop reasons", () => {
  const m = (finish: string, extra = {}, request: unknown = {}) =>
    chatToAnthropicResponse(
      completion({ role: "assistant", content: "x" }, finish, extra),
      request,
    );
  assert.equal(m("length").stop_reason, "max_tokens");
  assert.equal(m("content_filter").stop_reason, "refusal");
  assert.equal(m("stop").stop_reason, "end_turn");
  // vLLM reports the matched stop string; it is a stop_sequence when the request listed it.
  const seq = m("stop", { stop_reason: "END" }, { stop_sequences: ["END"] });
  assert.equal(seq.stop_reason, "stop_sequence");
  assert.equal(seq.stop_sequence, "END");
  assert.equal(
    m("stop", { stop_reason: 151645 }, { stop_sequences: ["END"] }).stop_reason,
    "end_turn",
  );
  // Some upstreams say "stop" when the model called tools.
  const calls = chatToAnthropicResponse(
    completion({
      role: "assistant",
      content: null,
      tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "{}" } }],
    }),
    {},
  );
  assert.equal(calls.stop_reason, "tool_use");
  assert.deepEqual(
    calls.content.map((b) => b.type),
    ["tool_use"],
  );
});

test("usage: cached prompt tokens are cache reads; reasoning tokens are thinking tokens", () => {
  assert.deepEqual(
    chatUsageToAnthropic({
      prompt_tokens: 100,
      completion_tokens: 10,
      total_tokens: 110,
      prompt_tokens_details: { cached_tokens: 64 },
      completion_tokens_details: { reasoning_tokens: 6 },
    }),
    {
      input_tokens: 36,
      output_tokens: 10,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 64,
      cache_creation: null,
      inference_geo: null,
      output_tokens_details: { thinking_tokens: 6 },
      server_tool_use: null,
      service_tier: null,
      speed: null,
    },
  );
});

test("error bodies map statuses to Anthropic error types", () => {
  const t = (status: number, type?: string) =>
    anthropicErrorBody({ status, message: "m", ...(type ? { type } : {}) }).error.type;
  assert.deepEqual(anthropicErrorBody({ status: 400, message: "bad" }), {
    type: "error",
    error: { type: "invalid_request_error", message: "bad" },
    request_id: null,
  });
  assert.equal(t(401), "authentication_error");
  assert.equal(t(403), "permission_error");
  assert.equal(t(404), "not_found_error");
  assert.equal(t(413), "request_too_large");
  assert.equal(t(429), "rate_limit_error");
  assert.equal(t(500), "api_error");
  assert.equal(t(502, "upstream_error"), "api_error");
  assert.equal(t(503), "overloaded_error");
  assert.equal(t(529), "overloaded_error");
  assert.equal(t(504), "timeout_error");
  assert.equal(t(500, "server_error"), "api_error");
  assert.equal(t(400, "invalid_request_error"), "invalid_request_error");
  assert.equal(t(500, "overloaded_error"), "overloaded_error");
});

// ---------------------------------------------------------------------------------------------
// streaming
// ---------------------------------------------------------------------------------------------

const textChunks = () => [
  chunk({ role: "assistant", content: "" }),
  chunk({ content: "Hel" }),
  chunk({ content: "lo" }),
  chunk({}, "stop"),
  usageChunk(12, 2),
];

const toolChunks = () =>
  toolCallChunks(usageChunk(30, 25, { prompt_tokens_details: { cached_tokens: 16 } }));

const lengthChunks = () => [
  chunk({ role: "assistant", content: "" }),
  chunk({ reasoning_content: "Long thought" }),
  chunk({ content: "Once" }),
  chunk({ content: " upon" }),
  chunk({}, "length"),
  usageChunk(5, 3),
];

const stopSequenceChunks = () => [
  chunk({ content: "The answer is 4" }),
  chunk({}, "stop", { stop_reason: "###" }),
  usageChunk(5, 5),
];

const badJsonChunks = () => [
  chunk({
    tool_calls: [
      { index: 0, id: "call_x", type: "function", function: { name: "f", arguments: '{"a":' } },
    ],
  }),
  chunk({ tool_calls: [{ index: 0, function: { arguments: " oops" } }] }),
  chunk({}, "tool_calls"),
  usageChunk(5, 5),
];

test("stream: text only", () => {
  const events = translateStream(textChunks(), { model: "claude-x" });
  assertWellFormed(events);
  assert.deepEqual(types(events), [
    "message_start",
    "ping",
    "content_block_start",
    "delta:text_delta",
    "delta:text_delta",
    "content_block_stop",
    "message_delta",
    "message_stop",
  ]);
  const start = data(events[0]!).message as AnthropicMessage;
  assert.equal(start.id, "msg_1");
  assert.equal(start.model, "qwen3-8b");
  assert.deepEqual(start.content, []);
  assert.equal(start.stop_reason, null);
  assert.deepEqual(data(events[2]!).content_block, { type: "text", text: "", citations: null });
  assert.deepEqual(data(events[3]!).delta, { type: "text_delta", text: "Hel" });
  const md = data(events[6]!);
  assert.deepEqual(md.delta, {
    stop_reason: "end_turn",
    stop_sequence: null,
    stop_details: null,
    container: null,
  });
  assert.deepEqual(md.usage, {
    input_tokens: 12,
    output_tokens: 2,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    output_tokens_details: null,
    server_tool_use: null,
  });
});

test("stream: reasoning then text", () => {
  const events = translateStream(reasoningChunks(), {});
  assertWellFormed(events);
  assert.deepEqual(types(events), [
    "message_start",
    "ping",
    "content_block_start",
    "delta:thinking_delta",
    "delta:thinking_delta",
    "delta:signature_delta",
    "content_block_stop",
    "content_block_start",
    "delta:text_delta",
    "delta:text_delta",
    "content_block_stop",
    "message_delta",
    "message_stop",
  ]);
  assert.deepEqual(data(events[2]!).content_block, {
    type: "thinking",
    thinking: "",
    signature: "",
  });
});

test("stream: parallel tool calls; the text block closes before tool_use opens", () => {
  const events = translateStream(toolChunks(), {});
  assertWellFormed(events);
  assert.deepEqual(types(events), [
    "message_start",
    "ping",
    "content_block_start",
    "delta:text_delta",
    "content_block_stop",
    "content_block_start",
    "delta:input_json_delta",
    "delta:input_json_delta",
    "content_block_stop",
    "content_block_start",
    "delta:input_json_delta",
    "delta:input_json_delta",
    "content_block_stop",
    "message_delta",
    "message_stop",
  ]);
  assert.deepEqual(data(events[5]!).content_block, {
    type: "tool_use",
    id: "call_a",
    name: "weather",
    input: {},
    caller: { type: "direct" },
  });
  assert.deepEqual(data(events[6]!).delta, { type: "input_json_delta", partial_json: '{"city":' });
  const md = data(events.at(-2)!);
  assert.equal((md.delta as { stop_reason: string }).stop_reason, "tool_use");
  assert.equal((md.usage as { input_tokens: number }).input_tokens, 14);
  assert.equal((md.usage as { cache_read_input_tokens: number }).cache_read_input_tokens, 16);
});

test("stream: invalid tool JSON sends no input_json_delta, so the input stays {}", () => {
  const events = translateStream(badJsonChunks(), {});
  assertWellFormed(events);
  assert.ok(!types(events).includes("delta:input_json_delta"));
  const msg = chatToAnthropicResponse(fold(badJsonChunks()), {});
  assert.deepEqual(msg.content[0]?.type === "tool_use" && msg.content[0].input, {});
});

test("stream: length and stop-sequence finishes", () => {
  const len = translateStream(lengthChunks(), {});
  assertWellFormed(len);
  assert.equal((data(len.at(-2)!).delta as { stop_reason: string }).stop_reason, "max_tokens");
  const seq = translateStream(stopSequenceChunks(), { stop_sequences: ["###"] });
  assert.deepEqual(data(seq.at(-2)!).delta as object, {
    stop_reason: "stop_sequence",
    stop_sequence: "###",
    stop_details: null,
    container: null,
  });
});

test("stream: inputTokens option fills message_start before usage is known", () => {
  const t = new AnthropicStreamTranslator({}, { inputTokens: 42 });
  const start = data(t.push(chunk({ content: "x" }))[0]!).message as AnthropicMessage;
  assert.equal(start.usage.input_tokens, 42);
  assert.equal(start.usage.output_tokens, 0);
});

test("stream: nothing from the upstream still yields a well-formed message", () => {
  const events = translateStream([], { model: "claude-x" });
  assertWellFormed(events);
  assert.equal((data(events[0]!).message as AnthropicMessage).model, "claude-x");
  assert.ok(types(events).includes("content_block_start"));
});

test("stream: fail emits an Anthropic error event and ends the stream", () => {
  const t = new AnthropicStreamTranslator({});
  t.push(chunk({ content: "x" }));
  const ev = t.fail({ status: 503, message: "upstream unavailable" });
  assert.deepEqual(ev, [
    {
      event: "error",
      data: {
        type: "error",
        error: { type: "overloaded_error", message: "upstream unavailable" },
        request_id: null,
      },
    },
  ]);
  assert.deepEqual(t.finish(), []);
});

// ---------------------------------------------------------------------------------------------
// the real `@anthropic-ai/sdk` client accumulates our stream into the non-streaming message
// ---------------------------------------------------------------------------------------------

/** Serves one fixed chunk list through our translators, as the gateway would. */
function withAnthropicServer(
  chunks: () => ChatCompletionChunk[],
  fn: (client: Anthropic) => Promise<void>,
  failMidStream = false,
): Promise<void> {
  const ids = { messageId: "msg_sdk" };
  return withReplayServer(
    {
      check: anthropicRequestToChat,
      stream(request) {
        const t = new AnthropicStreamTranslator(request, ids);
        const events = chunks().flatMap((c) => t.push(c));
        const tail = failMidStream ? t.fail({ status: 529, message: "Overloaded" }) : t.finish();
        return [...events, ...tail];
      },
      complete: (request) => chatToAnthropicResponse(fold(chunks()), request, ids),
    },
    (baseURL) => fn(new Anthropic({ apiKey: "test", baseURL, maxRetries: 0 })),
  );
}

const sdkParams = {
  model: "claude-x",
  max_tokens: 1024,
  stop_sequences: ["###"],
  messages: [{ role: "user" as const, content: "hi" }],
  tools: [
    {
      name: "weather",
      input_schema: { type: "object" as const, properties: { city: { type: "string" } } },
    },
  ],
};

for (const [name, chunks] of [
  ["text", textChunks],
  ["reasoning then text", reasoningChunks],
  ["parallel tool calls", toolChunks],
  ["length", lengthChunks],
  ["stop sequence", stopSequenceChunks],
  ["invalid tool JSON", badJsonChunks],
] as const) {
  test(`anthropic SDK: streamed final message equals the non-streaming one (${name})`, async () => {
    await withAnthropicServer(chunks, async (client) => {
      const stream = client.messages.stream(sdkParams);
      const streamed = await stream.finalMessage();
      const plain = await client.messages.create(sdkParams);
      // The stream helper adds `parsed_output` for its structured-output parsing.
      const { parsed_output: _parsed, ...rest } = JSON.parse(JSON.stringify(streamed)) as Record<
        string,
        unknown
      >;
      assert.deepEqual(rest, JSON.parse(JSON.stringify(plain)) as unknown);
      if (name === "parallel tool calls") {
        const inputs = streamed.content.flatMap((b) => (b.type === "tool_use" ? [b.input] : []));
        assert.deepEqual(inputs, [{ city: "Paris" }, { city: "Rome" }]);
        assert.equal(streamed.stop_reason, "tool_use");
      }
    });
  });
}

test("anthropic SDK: a mid-stream error event surfaces as an APIError", async () => {
  await withAnthropicServer(
    textChunks,
    async (client) => {
      const stream = client.messages.stream(sdkParams);
      await assert.rejects(stream.finalMessage(), (err: unknown) => {
        assert.ok(err instanceof Anthropic.APIError);
        assert.match(String(err.message), /Overloaded/);
        return true;
      });
    },
    true,
  );
});

test("stream: a name repeated on every delta is not duplicated", () => {
  const events = translateStream(
    [
      chunk({ tool_calls: [{ index: 0, id: "c", function: { name: "f", arguments: "{" } }] }),
      chunk({ tool_calls: [{ index: 0, function: { name: "f", arguments: "}" } }] }),
      chunk({}, "tool_calls"),
    ],
    {},
  );
  const start = events.find((e) => data(e).type === "content_block_start")!;
  assert.equal((data(start).content_block as { name: string }).name, "f");
});
