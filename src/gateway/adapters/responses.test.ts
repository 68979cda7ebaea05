import assert from "node:assert/strict";
import { test } from "node:test";
import OpenAI from "openai";
import { accumulateResponse } from "openai/lib/responses/ResponseAccumulator";
import type { Response, ResponseStreamEvent } from "openai/resources/responses/responses";
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
  chatToResponsesResponse,
  chatUsageToResponses,
  type ResponsesResponse,
  ResponsesStreamTranslator,
  responsesRequestToChat,
} from "./responses/index.js";
import type { SseEvent } from "./sse.js";

// ---------------------------------------------------------------------------------------------
// helpers
// ---------------------------------------------------------------------------------------------

const translateStream = (
  chunks: ChatCompletionChunk[],
  request: unknown,
  responseId = "resp_abc",
) => translateAll(new ResponsesStreamTranslator(request, { responseId }), chunks);

type Ev = { type: string; sequence_number: number; [k: string]: unknown };
const data = (e: SseEvent) => e.data as Ev;
const types = (events: SseEvent[]) => events.map((e) => data(e).type);

/** Invariants every Responses stream must satisfy. */
function assertWellFormed(events: SseEvent[]): void {
  events.forEach((e, i) => {
    assert.equal(e.event, data(e).type, "the SSE event name is the data's type");
    assert.equal(data(e).sequence_number, i, "sequence numbers count from 0 without gaps");
  });
  assert.equal(data(events[0]!).type, "response.created");
  assert.equal(data(events[1]!).type, "response.in_progress");
  const last = data(events.at(-1)!).type;
  assert.ok(["response.completed", "response.incomplete", "response.failed"].includes(last));
}

// ---------------------------------------------------------------------------------------------
// request translation
// ---------------------------------------------------------------------------------------------

test("string input with instructions and sampling settings", () => {
  const chat = responsesRequestToChat({
    model: "gpt-x",
    instructions: "Be terse.",
    input: "Hello",
    max_output_tokens: 128,
    temperature: 0.5,
    top_p: 0.9,
    metadata: { run: "1" },
    store: false,
    include: ["reasoning.encrypted_content"],
  });
  assert.deepEqual(chat, {
    model: "gpt-x",
    messages: [
      { role: "system", content: "Be terse." },
      { role: "user", content: "Hello" },
    ],
    max_tokens: 128,
    temperature: 0.5,
    top_p: 0.9,
  });
  ChatCompletionRequestSchema.parse(chat);
});

test("stream asks the upstream for usage", () => {
  const chat = responsesRequestToChat({ model: "m", input: "hi", stream: true });
  assert.equal(chat.stream, true);
  assert.deepEqual(chat.stream_options, { include_usage: true });
});

test("message items: parts, images, roles, and easy messages without type", () => {
  const chat = responsesRequestToChat({
    input: [
      { role: "developer", content: "Rules." },
      {
        type: "message",
        role: "user",
        content: [
          { type: "input_text", text: "What is in " },
          { type: "input_text", text: "this image?" },
          { type: "input_image", image_url: "data:image/png;base64,AAAA", detail: "low" },
        ],
      },
      { role: "assistant", content: [{ type: "output_text", text: "A cat.", annotations: [] }] },
      { role: "user", content: "Thanks" },
    ],
  });
  assert.deepEqual(chat.messages, [
    { role: "system", content: "Rules." },
    {
      role: "user",
      content: [
        { type: "text", text: "What is in " },
        { type: "text", text: "this image?" },
        { type: "image_url", image_url: { url: "data:image/png;base64,AAAA", detail: "low" } },
      ],
    },
    { role: "assistant", content: "A cat." },
    { role: "user", content: "Thanks" },
  ]);
  ChatCompletionRequestSchema.parse(chat);
});

test("reasoning, text and function calls of one turn fold into one assistant message", () => {
  const chat = responsesRequestToChat({
    input: [
      { role: "user", content: "Weather in Paris and Rome?" },
      {
        type: "reasoning",
        id: "rs_1",
        summary: [],
        content: [{ type: "reasoning_text", text: "Two cities, two calls." }],
      },
      {
        type: "message",
        id: "msg_1",
        role: "assistant",
        status: "completed",
        content: [{ type: "output_text", text: "Checking.", annotations: [] }],
      },
      {
        type: "function_call",
        id: "fc_1",
        call_id: "call_a",
        name: "weather",
        arguments: '{"city":"Paris"}',
        status: "completed",
      },
      {
        type: "function_call",
        id: "fc_2",
        call_id: "call_b",
        name: "weather",
        arguments: '{"city":"Rome"}',
      },
      { type: "function_call_output", call_id: "call_a", output: "18C" },
      {
        type: "function_call_output",
        call_id: "call_b",
        output: [
          { type: "input_text", text: "21C" },
          { type: "input_text", text: ", sunny" },
        ],
      },
      {
        type: "reasoning",
        summary: [{ type: "summary_text", text: "Compare." }],
      },
      { role: "assistant", content: "Rome is warmer." },
    ],
  });
  assert.deepEqual(chat.messages, [
    { role: "user", content: "Weather in Paris and Rome?" },
    {
      role: "assistant",
      content: "Checking.",
      reasoning_content: "Two cities, two calls.",
      tool_calls: [
        {
          id: "call_a",
          type: "function",
          function: { name: "weather", arguments: '{"city":"Paris"}' },
        },
        {
          id: "call_b",
          type: "function",
          function: { name: "weather", arguments: '{"city":"Rome"}' },
        },
      ],
    },
    { role: "tool", tool_call_id: "call_a", content: "18C" },
    { role: "tool", tool_call_id: "call_b", content: "21C, sunny" },
    { role: "assistant", content: "Rome is warmer.", reasoning_content: "Compare." },
  ]);
  ChatCompletionRequestSchema.parse(chat);
});

test("a function call without preceding text gets null content; text after calls starts a new message", () => {
  const chat = responsesRequestToChat({
    input: [
      { role: "user", content: "go" },
      { type: "function_call", call_id: "c1", name: "f", arguments: "{}" },
      { role: "assistant", content: "after" },
    ],
  });
  assert.deepEqual(chat.messages.slice(1), [
    {
      role: "assistant",
      content: null,
      tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }],
    },
    { role: "assistant", content: "after" },
  ]);
});

test("tools, tool_choice and text.format map to their chat forms", () => {
  const tools = [
    {
      type: "function",
      name: "weather",
      description: "Get weather",
      parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
      strict: true,
    },
    { type: "function", name: "noop", parameters: null, strict: null },
  ];
  const chat = responsesRequestToChat({
    input: "hi",
    tools,
    tool_choice: { type: "function", name: "weather" },
    parallel_tool_calls: false,
    text: {
      format: { type: "json_schema", name: "answer", schema: { type: "object" }, strict: true },
    },
    reasoning: { effort: "low" },
  });
  assert.deepEqual(chat.tools, [
    {
      type: "function",
      function: {
        name: "weather",
        description: "Get weather",
        parameters: tools[0]!.parameters,
        strict: true,
      },
    },
    {
      type: "function",
      function: { name: "noop", parameters: { type: "object", properties: {} } },
    },
  ]);
  assert.deepEqual(chat.tool_choice, { type: "function", function: { name: "weather" } });
  assert.equal(chat.parallel_tool_calls, false);
  assert.deepEqual(chat.response_format, {
    type: "json_schema",
    json_schema: { name: "answer", schema: { type: "object" }, strict: true },
  });
  assert.equal(chat.reasoning_effort, "low");
  ChatCompletionRequestSchema.parse(chat);

  for (const c of ["auto", "none", "required"]) {
    assert.equal(responsesRequestToChat({ input: "x", tools, tool_choice: c }).tool_choice, c);
  }
  const allowed = responsesRequestToChat({
    input: "x",
    tools,
    tool_choice: {
      type: "allowed_tools",
      mode: "required",
      tools: [{ type: "function", name: "noop" }],
    },
  });
  assert.equal(allowed.tool_choice, "required");
  assert.deepEqual(
    allowed.tools?.map((t) => t.function.name),
    ["noop"],
  );
  assert.deepEqual(
    responsesRequestToChat({ input: "x", text: { format: { type: "json_object" } } })
      .response_format,
    { type: "json_object" },
  );
  assert.equal(
    responsesRequestToChat({ input: "x", text: { format: { type: "text" } } }).response_format,
    undefined,
  );
});

test("bad requests are 400s that name the field", () => {
  expectHttp400(() => responsesRequestToChat({ model: "m" }), "input", "required");
  expectHttp400(() => responsesRequestToChat({ input: 42 }), "input", "string or an array");
  expectHttp400(() => responsesRequestToChat("hello"), "JSON object");
  expectHttp400(() => responsesRequestToChat({ input: [] }), "input", "at least one");
  expectHttp400(
    () => responsesRequestToChat({ input: "x", previous_response_id: "resp_1" }),
    "previous_response_id",
    "stateless",
  );
  expectHttp400(
    () => responsesRequestToChat({ input: "x", conversation: "conv_1" }),
    "conversation",
  );
  expectHttp400(() => responsesRequestToChat({ input: "x", background: true }), "background");
  expectHttp400(
    () =>
      responsesRequestToChat({
        input: [
          { role: "user", content: "x" },
          { type: "function_call", name: "f", arguments: "{}" },
        ],
      }),
    "input.1.call_id",
  );
  expectHttp400(
    () => responsesRequestToChat({ input: [{ type: "item_reference", id: "msg_1" }] }),
    "input.0.type",
    "item_reference",
  );
  expectHttp400(
    () => responsesRequestToChat({ input: [{ type: "web_search_call", id: "ws" }] }),
    "input.0.type",
    "web_search_call",
  );
  expectHttp400(
    () => responsesRequestToChat({ input: [{ role: "robot", content: "x" }] }),
    "input.0.role",
  );
  expectHttp400(
    () => responsesRequestToChat({ input: [{ role: "user", content: [{ type: "input_audio" }] }] }),
    "input.0.content.0.type",
  );
  expectHttp400(
    () =>
      responsesRequestToChat({
        input: [{ role: "user", content: [{ type: "input_image", file_id: "file_1" }] }],
      }),
    "input.0.content.0.image_url",
  );
  expectHttp400(
    () => responsesRequestToChat({ input: "x", tools: [{ type: "web_search" }] }),
    "tools.0.type",
    "web_search",
  );
  expectHttp400(
    () => responsesRequestToChat({ input: "x", tools: [{ type: "function" }] }),
    "tools.0.name",
  );
  expectHttp400(
    () => responsesRequestToChat({ input: "x", max_output_tokens: -1 }),
    "max_output_tokens",
  );
  expectHttp400(() => responsesRequestToChat({ input: "x", temperature: "hot" }), "temperature");
  expectHttp400(
    () => responsesRequestToChat({ input: "x", tool_choice: "sometimes" }),
    "tool_choice",
  );
  expectHttp400(
    () => responsesRequestToChat({ input: "x", text: { format: { type: "yaml" } } }),
    "text.format.type",
  );
});

// ---------------------------------------------------------------------------------------------
// non-streaming response
// ---------------------------------------------------------------------------------------------

const baseCompletion = (message: ChatCompletion["choices"][number]["message"], finish = "stop") =>
  ({
    id: "chatcmpl-9",
    object: "chat.completion",
    created: 1_700_000_123,
    model: "qwen3-8b",
    choices: [{ index: 0, message, finish_reason: finish }],
    usage: {
      prompt_tokens: 20,
      completion_tokens: 7,
      total_tokens: 27,
      prompt_tokens_details: { cached_tokens: 16 },
      completion_tokens_details: { reasoning_tokens: 3 },
    },
  }) satisfies ChatCompletion;

test("a text completion becomes a completed response echoing the request", () => {
  const request = {
    model: "gpt-x",
    input: "hi",
    instructions: "Be nice.",
    temperature: 0.2,
    max_output_tokens: 50,
    metadata: { k: "v" },
    tools: [],
  };
  const res = chatToResponsesResponse(
    baseCompletion({ role: "assistant", content: "Hello!" }),
    request,
    { responseId: "resp_x1" },
  );
  assert.equal(res.id, "resp_x1");
  assert.equal(res.object, "response");
  assert.equal(res.status, "completed");
  assert.equal(typeof res.completed_at, "number");
  assert.equal(res.created_at, 1_700_000_123);
  assert.equal(res.model, "qwen3-8b");
  assert.equal(res.instructions, "Be nice.");
  assert.equal(res.temperature, 0.2);
  assert.equal(res.max_output_tokens, 50);
  assert.deepEqual(res.metadata, { k: "v" });
  assert.equal(res.tool_choice, "auto");
  assert.equal(res.error, null);
  assert.equal(res.incomplete_details, null);
  assert.deepEqual(res.output, [
    {
      id: "msg_x10",
      type: "message",
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: "Hello!", annotations: [] }],
    },
  ]);
  assert.deepEqual(res.usage, {
    input_tokens: 20,
    input_tokens_details: { cached_tokens: 16, cache_write_tokens: 0 },
    output_tokens: 7,
    output_tokens_details: { reasoning_tokens: 3 },
    total_tokens: 27,
  });
});

test("reasoning and tool calls become reasoning and function_call items", () => {
  const res = chatToResponsesResponse(
    baseCompletion(
      {
        role: "assistant",
        content: null,
        reasoning_content: "Need the weather.",
        tool_calls: [
          { id: "call_1", type: "function", function: { name: "weather", arguments: '{"c":"P"}' } },
          { id: "call_2", type: "function", function: { name: "time", arguments: "{}" } },
        ],
      },
      "tool_calls",
    ),
    { input: "x" },
    { responseId: "resp_t" },
  );
  assert.equal(res.status, "completed");
  assert.deepEqual(res.output, [
    {
      id: "rs_t0",
      type: "reasoning",
      summary: [],
      content: [{ type: "reasoning_text", text: "Need the weather." }],
    },
    {
      id: "fc_t1",
      type: "function_call",
      status: "completed",
      call_id: "call_1",
      name: "weather",
      arguments: '{"c":"P"}',
    },
    {
      id: "fc_t2",
      type: "function_call",
      status: "completed",
      call_id: "call_2",
      name: "time",
      arguments: "{}",
    },
  ]);
});

test("a length finish is an incomplete response with an incomplete last item", () => {
  const res = chatToResponsesResponse(
    baseCompletion({ role: "assistant", content: "Once upon" }, "length"),
    { input: "story" },
  );
  assert.equal(res.status, "incomplete");
  assert.deepEqual(res.incomplete_details, { reason: "max_output_tokens" });
  assert.equal(res.completed_at, null);
  assert.equal(res.output[0]?.type === "message" && res.output[0].status, "incomplete");
});

test("an empty completion still has one (empty) message", () => {
  const res = chatToResponsesResponse(baseCompletion({ role: "assistant", content: null }), {});
  assert.equal(res.output.length, 1);
  assert.equal(res.output[0]?.type, "message");
});

test("usage mapping tolerates a missing usage", () => {
  assert.deepEqual(chatUsageToResponses(undefined), {
    input_tokens: 0,
    input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
    output_tokens: 0,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 0,
  });
});

// ---------------------------------------------------------------------------------------------
// streaming
// ---------------------------------------------------------------------------------------------

const textChunks = () => [
  chunk({ role: "assistant", content: "" }),
  chunk({ content: "Hel" }),
  chunk({ content: "lo" }),
  chunk({ content: " world" }),
  chunk({}, "stop"),
  usageChunk(12, 3),
];

const lengthChunks = () => [
  chunk({ role: "assistant", content: "" }),
  chunk({ content: "Once" }),
  chunk({ content: " upon" }),
  chunk({}, "length"),
  usageChunk(5, 2),
];

test("stream: text only", () => {
  const events = translateStream(textChunks(), { model: "m", input: "hi" });
  assertWellFormed(events);
  assert.deepEqual(types(events), [
    "response.created",
    "response.in_progress",
    "response.output_item.added",
    "response.content_part.added",
    "response.output_text.delta",
    "response.output_text.delta",
    "response.output_text.delta",
    "response.output_text.done",
    "response.content_part.done",
    "response.output_item.done",
    "response.completed",
  ]);
  const created = data(events[0]!).response as ResponsesResponse;
  assert.equal(created.status, "in_progress");
  assert.deepEqual(created.output, []);
  assert.equal(created.usage, null);
  const added = data(events[2]!);
  assert.equal(added.output_index, 0);
  assert.deepEqual(added.item, {
    id: "msg_abc0",
    type: "message",
    role: "assistant",
    status: "in_progress",
    content: [],
  });
  const delta = data(events[4]!);
  assert.deepEqual(
    {
      item_id: delta.item_id,
      output_index: delta.output_index,
      content_index: delta.content_index,
    },
    { item_id: "msg_abc0", output_index: 0, content_index: 0 },
  );
  assert.equal(data(events[7]!).text, "Hello world");
  const completed = data(events.at(-1)!).response as ResponsesResponse;
  assert.equal(completed.status, "completed");
  assert.equal(completed.usage?.input_tokens, 12);
  assert.equal(completed.usage?.output_tokens, 3);
});

test("stream: reasoning then text", () => {
  const events = translateStream(reasoningChunks(), { input: "hi" });
  assertWellFormed(events);
  assert.deepEqual(types(events).slice(2), [
    "response.output_item.added",
    "response.content_part.added",
    "response.reasoning_text.delta",
    "response.reasoning_text.delta",
    "response.reasoning_text.done",
    "response.content_part.done",
    "response.output_item.done",
    "response.output_item.added",
    "response.content_part.added",
    "response.output_text.delta",
    "response.output_text.delta",
    "response.output_text.done",
    "response.content_part.done",
    "response.output_item.done",
    "response.completed",
  ]);
  assert.deepEqual(data(events[3]!).part, { type: "reasoning_text", text: "" });
  assert.equal(data(events[6]!).text, "The user greets.");
  assert.equal(data(events[9]!).output_index, 1);
  const completed = data(events.at(-1)!).response as ResponsesResponse;
  assert.deepEqual(
    completed.output,
    chatToResponsesResponse(fold(reasoningChunks()), { input: "hi" }, { responseId: "resp_abc" })
      .output,
  );
  assert.equal(completed.usage?.output_tokens_details.reasoning_tokens, 4);
});

test("stream: vLLM's `reasoning` field is read like reasoning_content", () => {
  const events = translateStream(
    [chunk({ reasoning: "hmm" }), chunk({ content: "ok" }), chunk({}, "stop")],
    {},
  );
  assert.ok(types(events).includes("response.reasoning_text.delta"));
});

test("stream: parallel tool calls with split argument deltas", () => {
  const events = translateStream(toolCallChunks(), { input: "x" });
  assertWellFormed(events);
  assert.deepEqual(types(events).slice(2), [
    "response.output_item.added",
    "response.content_part.added",
    "response.output_text.delta",
    "response.output_text.done",
    "response.content_part.done",
    "response.output_item.done",
    "response.output_item.added",
    "response.function_call_arguments.delta",
    "response.function_call_arguments.delta",
    "response.function_call_arguments.done",
    "response.output_item.done",
    "response.output_item.added",
    "response.function_call_arguments.delta",
    "response.function_call_arguments.delta",
    "response.function_call_arguments.done",
    "response.output_item.done",
    "response.completed",
  ]);
  const fcAdded = data(events[8]!);
  assert.deepEqual(fcAdded.item, {
    id: "fc_abc1",
    type: "function_call",
    status: "in_progress",
    call_id: "call_a",
    name: "weather",
    arguments: "",
  });
  const argsDone = events.filter((e) => data(e).type === "response.function_call_arguments.done");
  assert.deepEqual(
    argsDone.map((e) => [data(e).output_index, data(e).name, data(e).arguments]),
    [
      [1, "weather", '{"city":"Paris"}'],
      [2, "weather", '{"city":"Rome"}'],
    ],
  );
  const completed = data(events.at(-1)!).response as ResponsesResponse;
  assert.deepEqual(
    completed.output,
    chatToResponsesResponse(fold(toolCallChunks()), { input: "x" }, { responseId: "resp_abc" })
      .output,
  );
});

test("stream: a tool call whose name arrives after its id waits for the name", () => {
  const events = translateStream(
    [
      chunk({
        tool_calls: [{ index: 0, id: "call_z", type: "function", function: { arguments: "" } }],
      }),
      chunk({ tool_calls: [{ index: 0, function: { name: "f", arguments: '{"a":1}' } }] }),
      chunk({}, "tool_calls"),
    ],
    {},
  );
  const added = events.find((e) => data(e).type === "response.output_item.added")!;
  assert.equal((data(added).item as { name: string }).name, "f");
  const done = events.find((e) => data(e).type === "response.function_call_arguments.done")!;
  assert.equal(data(done).arguments, '{"a":1}');
});

test("stream: a length finish ends with response.incomplete", () => {
  const events = translateStream(lengthChunks(), { input: "story", max_output_tokens: 2 });
  assertWellFormed(events);
  const last = data(events.at(-1)!);
  assert.equal(last.type, "response.incomplete");
  const res = last.response as ResponsesResponse;
  assert.equal(res.status, "incomplete");
  assert.deepEqual(res.incomplete_details, { reason: "max_output_tokens" });
  assert.equal(res.max_output_tokens, 2);
  assert.equal(res.output[0]?.type === "message" && res.output[0].status, "incomplete");
});

test("stream: an upstream that sends nothing still yields a complete, non-empty response", () => {
  const events = translateStream([], { model: "m", input: "x" });
  assertWellFormed(events);
  const res = data(events.at(-1)!).response as ResponsesResponse;
  assert.equal(res.model, "m");
  assert.equal(res.output.length, 1);
});

test("stream: fail ends with response.failed; later calls emit nothing", () => {
  const t = new ResponsesStreamTranslator({ input: "x" });
  const events = [...t.push(chunk({ content: "par" })), ...t.fail({ message: "upstream died" })];
  assertWellFormed(events);
  const res = data(events.at(-1)!).response as ResponsesResponse;
  assert.equal(res.status, "failed");
  assert.deepEqual(res.error, { code: "server_error", message: "upstream died" });
  assert.deepEqual(t.finish(), []);
  assert.deepEqual(t.push(chunk({ content: "more" })), []);
});

test("stream: choices other than index 0 are ignored", () => {
  const c = chunk({ content: "zero" });
  c.choices.push({ index: 1, delta: { content: "one" }, finish_reason: null });
  const events = translateStream([c, chunk({}, "stop")], {});
  const deltas = events.filter((e) => data(e).type === "response.output_text.delta");
  assert.deepEqual(
    deltas.map((e) => data(e).delta),
    ["zero"],
  );
});

// ---------------------------------------------------------------------------------------------
// the real `openai` client accumulates our stream into the non-streaming response
// ---------------------------------------------------------------------------------------------

/** Serves one fixed chunk list through our translators, as the gateway would. */
function withResponsesServer(
  chunks: () => ChatCompletionChunk[],
  fn: (client: OpenAI) => Promise<void>,
): Promise<void> {
  return withReplayServer(
    {
      check: responsesRequestToChat,
      stream: (request) => translateStream(chunks(), request, "resp_sdk"),
      complete: (request) =>
        chatToResponsesResponse(fold(chunks()), request, { responseId: "resp_sdk" }),
    },
    (base) => fn(new OpenAI({ apiKey: "test", baseURL: `${base}/v1`, maxRetries: 0 })),
  );
}

/** Drops what the client adds for its parse helpers and the wall-clock completion time. */
function comparable(res: object): unknown {
  const r = structuredClone(res) as Record<string, unknown>;
  delete r.output_parsed;
  delete r.completed_at;
  r.output = (r.output as Record<string, unknown>[]).map((item) => {
    const { parsed_arguments: _p, ...rest } = item;
    if (Array.isArray(rest.content)) {
      rest.content = (rest.content as Record<string, unknown>[]).map(({ parsed: _q, ...c }) => c);
    }
    return rest;
  });
  return r;
}

for (const [name, chunks] of [
  ["text", textChunks],
  ["reasoning then text", reasoningChunks],
  ["parallel tool calls", toolCallChunks],
  ["length", lengthChunks],
] as const) {
  test(`openai SDK: streamed final response equals the non-streaming one (${name})`, async () => {
    await withResponsesServer(chunks, async (client) => {
      const params = {
        model: "qwen3-8b",
        input: "hi",
        instructions: "Be brief.",
        tools: [
          {
            type: "function" as const,
            name: "weather",
            parameters: { type: "object", properties: { city: { type: "string" } } },
            strict: false,
          },
        ],
      };
      const stream = client.responses.stream(params);
      const seen: string[] = [];
      stream.on("event", (e) => seen.push(e.type));
      const streamed = await stream.finalResponse();
      const plain = await client.responses.create(params);
      assert.deepEqual(comparable(streamed), comparable(plain));
      assert.equal(seen[0], "response.created");
      assert.equal(streamed.output_text, plain.output_text);
      if (name === "text") assert.equal(streamed.output_text, "Hello world");
      if (name === "parallel tool calls") {
        const calls = streamed.output.filter((o) => o.type === "function_call");
        assert.deepEqual(
          calls.map((c) => JSON.parse(c.arguments) as unknown),
          [{ city: "Paris" }, { city: "Rome" }],
        );
      }
    });
  });
}

for (const [name, chunks] of [
  ["text", textChunks],
  ["reasoning then text", reasoningChunks],
  ["parallel tool calls", toolCallChunks],
  ["length", lengthChunks],
] as const) {
  test(`openai accumulator: the deltas alone rebuild the non-streaming output (${name})`, () => {
    // The terminal event replaces the client's snapshot wholesale, so leave it out: what remains
    // is what the client built from added/delta/done events.
    const events = translateStream(chunks(), { input: "x" });
    let snapshot: Response | undefined;
    for (const e of events.slice(0, -1)) {
      snapshot = accumulateResponse(e.data as ResponseStreamEvent, snapshot);
    }
    const plain = chatToResponsesResponse(
      fold(chunks()),
      { input: "x" },
      { responseId: "resp_abc" },
    );
    assert.deepEqual(snapshot?.output, plain.output);

    // Stricter: from the added and delta events only (done events also carry whole items).
    let fromDeltas: Response | undefined;
    for (const e of events) {
      const type = data(e).type;
      if (type.endsWith(".done") || type === "response.completed" || type === "response.incomplete")
        continue;
      fromDeltas = accumulateResponse(e.data as ResponseStreamEvent, fromDeltas);
    }
    const expected = structuredClone(plain.output).map((item) =>
      "status" in item ? { ...item, status: "in_progress" } : item,
    );
    assert.deepEqual(fromDeltas?.output, expected);
  });
}

test("stream: a name repeated on every delta is not duplicated", () => {
  const events = translateStream(
    [
      chunk({ tool_calls: [{ index: 0, id: "c", function: { name: "f", arguments: "{" } }] }),
      chunk({ tool_calls: [{ index: 0, function: { name: "f", arguments: "}" } }] }),
      chunk({}, "tool_calls"),
    ],
    {},
  );
  const done = events.find((e) => data(e).type === "response.function_call_arguments.done")!;
  assert.equal(data(done).name, "f");
  assert.equal(data(done).arguments, "{}");
});
