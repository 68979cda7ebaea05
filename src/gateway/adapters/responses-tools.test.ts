/**
 * The Responses adapter's tool kinds beyond plain functions, as Codex sends them: `custom` tools
 * (freeform input), `namespace` tools (Codex's `multi_agent_v1`), and their calls and outputs in
 * the input. Shapes: `openai` npm client, resources/responses/responses.d.ts (CustomTool,
 * NamespaceTool, ResponseCustomToolCall, ResponseCustomToolCallOutput, ResponseFunctionToolCall's
 * `namespace`, the custom_tool_call_input events); Codex's items: openai/codex
 * codex-rs/protocol/src/models.rs (ResponseItem::CustomToolCall, CustomToolCallOutput).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import OpenAI from "openai";
import { accumulateResponse } from "openai/lib/responses/ResponseAccumulator";
import type { Response, ResponseStreamEvent } from "openai/resources/responses/responses";
import {
  chunk,
  expectHttp400,
  fold,
  translateAll,
  usageChunk,
  withReplayServer,
} from "../../testing/sse-replay.js";
import type { ChatCompletionChunk } from "../../types/chat.js";
import {
  chatToResponsesResponse,
  ResponsesStreamTranslator,
  responsesRequestToChat,
} from "./responses/index.js";

const PATCH = "*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch\n";

/** Codex-like tools: a function, a custom tool with a grammar, a namespace of two members. */
const TOOLS = [
  {
    type: "function",
    name: "exec_command",
    description: "Runs a command.",
    strict: false,
    parameters: { type: "object", properties: { cmd: { type: "string" } }, required: ["cmd"] },
  },
  {
    type: "custom",
    name: "apply_patch",
    description: "Edits files.",
    format: { type: "grammar", syntax: "lark", definition: 'start: "*** Begin Patch"' },
  },
  {
    type: "namespace",
    name: "multi_agent_v1",
    description: "Sub-agents.",
    tools: [
      {
        type: "function",
        name: "spawn_agent",
        description: "Spawns one.",
        parameters: { type: "object", properties: { task: { type: "string" } } },
      },
      { type: "custom", name: "note" },
    ],
  },
];

test("tools: custom tools and namespace members become chat functions", () => {
  const chat = responsesRequestToChat({ input: "x", tools: TOOLS });
  assert.deepEqual(chat.tools, [
    {
      type: "function",
      function: {
        name: "exec_command",
        description: "Runs a command.",
        strict: false,
        parameters: { type: "object", properties: { cmd: { type: "string" } }, required: ["cmd"] },
      },
    },
    {
      type: "function",
      function: {
        name: "apply_patch",
        description: "Edits files.",
        parameters: {
          type: "object",
          properties: {
            input: {
              type: "string",
              description:
                'The tool\'s input, as free text that must match this lark grammar:\nstart: "*** Begin Patch"',
            },
          },
          required: ["input"],
          additionalProperties: false,
        },
      },
    },
    {
      type: "function",
      function: {
        name: "multi_agent_v1__spawn_agent",
        description: "Sub-agents.\n\nSpawns one.",
        parameters: { type: "object", properties: { task: { type: "string" } } },
      },
    },
    {
      type: "function",
      function: {
        name: "multi_agent_v1__note",
        description: "Sub-agents.",
        parameters: {
          type: "object",
          properties: { input: { type: "string", description: "The tool's input, as free text." } },
          required: ["input"],
          additionalProperties: false,
        },
      },
    },
  ]);
});

test("tools: hosted tools, bad members and colliding names are refused, naming the field", () => {
  expectHttp400(
    () => responsesRequestToChat({ input: "x", tools: [{ type: "web_search" }] }),
    "tools.0.type",
    'web_search = "disabled"',
  );
  expectHttp400(
    () =>
      responsesRequestToChat({
        input: "x",
        tools: [{ type: "namespace", name: "ns", tools: [{ type: "web_search" }] }],
      }),
    "tools.0.tools.0.type",
    "inside a namespace",
  );
  expectHttp400(
    () =>
      responsesRequestToChat({
        input: "x",
        tools: [
          { type: "function", name: "ns__f" },
          { type: "namespace", name: "ns", tools: [{ type: "function", name: "f" }] },
        ],
      }),
    "tools.1.tools.0.name",
    "'ns__f' names two tools",
  );
  expectHttp400(
    () =>
      responsesRequestToChat({
        input: "x",
        tools: [{ type: "custom", name: "c", format: { type: "grammar", syntax: "peg" } }],
      }),
    "tools.0.format",
  );
  expectHttp400(
    () =>
      responsesRequestToChat({
        input: "x",
        tools: [{ type: "namespace", name: "a.b", tools: [] }],
      }),
    "tools.0.name",
  );
});

test("tool_choice: a custom tool is chosen as its chat function", () => {
  const chat = responsesRequestToChat({
    input: "x",
    tools: TOOLS,
    tool_choice: { type: "custom", name: "apply_patch" },
  });
  assert.deepEqual(chat.tool_choice, { type: "function", function: { name: "apply_patch" } });
});

test("input: custom and namespaced calls and their outputs, as Codex sends them back", () => {
  const chat = responsesRequestToChat({
    input: [
      { type: "message", role: "user", content: [{ type: "input_text", text: "go" }] },
      {
        type: "custom_tool_call",
        call_id: "c1",
        name: "apply_patch",
        input: PATCH,
        status: "completed",
      },
      {
        type: "function_call",
        call_id: "c2",
        name: "spawn_agent",
        namespace: "multi_agent_v1",
        arguments: '{"task":"t"}',
      },
      { type: "custom_tool_call_output", call_id: "c1", output: "Done!" },
      { type: "function_call_output", call_id: "c2", output: "agent 1" },
    ],
    tools: TOOLS,
  });
  assert.deepEqual(chat.messages, [
    { role: "user", content: [{ type: "text", text: "go" }] },
    {
      role: "assistant",
      content: null,
      tool_calls: [
        {
          id: "c1",
          type: "function",
          function: { name: "apply_patch", arguments: JSON.stringify({ input: PATCH }) },
        },
        {
          id: "c2",
          type: "function",
          function: { name: "multi_agent_v1__spawn_agent", arguments: '{"task":"t"}' },
        },
      ],
    },
    { role: "tool", tool_call_id: "c1", content: "Done!" },
    { role: "tool", tool_call_id: "c2", content: "agent 1" },
  ]);
  expectHttp400(
    () =>
      responsesRequestToChat({ input: [{ type: "custom_tool_call", call_id: "c", name: "n" }] }),
    "input.0.input",
  );
});

/** The model calls the custom tool (input as a JSON argument), then a namespace member. */
const callChunks = (): ChatCompletionChunk[] => [
  chunk({ role: "assistant", content: "" }),
  chunk({
    tool_calls: [
      {
        index: 0,
        id: "call_p",
        type: "function",
        function: { name: "apply_patch", arguments: "" },
      },
    ],
  }),
  chunk({ tool_calls: [{ index: 0, function: { arguments: '{"input":' } }] }),
  chunk({ tool_calls: [{ index: 0, function: { arguments: JSON.stringify(PATCH) } }] }),
  chunk({ tool_calls: [{ index: 0, function: { arguments: "}" } }] }),
  chunk({
    tool_calls: [
      {
        index: 1,
        id: "call_s",
        type: "function",
        function: { name: "multi_agent_v1__spawn_agent", arguments: '{"task":"t"}' },
      },
    ],
  }),
  chunk({}, "tool_calls"),
  usageChunk(20, 10),
];

const REQUEST = { model: "m", input: "x", tools: TOOLS };

test("response: calls come back as custom_tool_call and namespaced function_call items", () => {
  const res = chatToResponsesResponse(fold(callChunks()), REQUEST, { responseId: "resp_1" });
  assert.deepEqual(res.output, [
    {
      id: "ctc_10",
      type: "custom_tool_call",
      status: "completed",
      call_id: "call_p",
      name: "apply_patch",
      input: PATCH,
    },
    {
      id: "fc_11",
      type: "function_call",
      status: "completed",
      call_id: "call_s",
      name: "spawn_agent",
      arguments: '{"task":"t"}',
      namespace: "multi_agent_v1",
    },
  ]);
});

test("response: a custom call whose arguments are not {input} passes them as the input", () => {
  const c = fold([
    chunk({
      tool_calls: [{ index: 0, id: "c", function: { name: "apply_patch", arguments: PATCH } }],
    }),
    chunk({}, "tool_calls"),
  ]);
  const res = chatToResponsesResponse(c, REQUEST, { responseId: "resp_1" });
  assert.equal(res.output[0]?.type, "custom_tool_call");
  assert.equal((res.output[0] as { input: string }).input, PATCH);
});

test("stream: a custom call's input is sent whole when it closes; deltas rebuild the output", () => {
  const events = translateAll(
    new ResponsesStreamTranslator(REQUEST, { responseId: "resp_1" }),
    callChunks(),
  );
  const custom = events
    .map((e) => e.data as { type: string; delta?: string; input?: string; item?: { type: string } })
    .filter((d) => d.type.includes("custom_tool_call") || d.item?.type === "custom_tool_call");
  assert.deepEqual(
    custom.map((d) => d.type),
    [
      "response.output_item.added",
      "response.custom_tool_call_input.delta",
      "response.custom_tool_call_input.done",
      "response.output_item.done",
    ],
  );
  assert.equal(custom[1]?.delta, PATCH);
  assert.ok(
    !events.some(
      (e) =>
        (e.data as { type: string; item_id?: string }).type ===
          "response.function_call_arguments.delta" &&
        (e.data as { item_id?: string }).item_id === "ctc_10",
    ),
    "no argument deltas for a custom call",
  );
  // The openai client's accumulator, fed only the added and delta events, rebuilds the items.
  let snapshot: Response | undefined;
  for (const e of events) {
    const type = (e.data as { type: string }).type;
    if (type.endsWith(".done") || type === "response.completed") continue;
    snapshot = accumulateResponse(e.data as ResponseStreamEvent, snapshot);
  }
  const plain = chatToResponsesResponse(fold(callChunks()), REQUEST, { responseId: "resp_1" });
  assert.deepEqual(
    snapshot?.output,
    plain.output.map((o) => ({ ...o, status: "in_progress" })),
  );
});

test("openai SDK: a streamed custom/namespaced answer equals the non-streaming one", async () => {
  await withReplayServer(
    {
      check: responsesRequestToChat,
      stream: (request) =>
        translateAll(
          new ResponsesStreamTranslator(request, { responseId: "resp_sdk" }),
          callChunks(),
        ),
      complete: (request) =>
        chatToResponsesResponse(fold(callChunks()), request, { responseId: "resp_sdk" }),
    },
    async (base) => {
      const client = new OpenAI({ apiKey: "t", baseURL: `${base}/v1`, maxRetries: 0 });
      const params = REQUEST as unknown as OpenAI.Responses.ResponseCreateParamsStreaming;
      const streamed = await client.responses.stream(params).finalResponse();
      const plain = await client.responses.create({ ...params, stream: false });
      // The stream helper adds its parse result to function calls.
      const items = (r: Response) =>
        r.output.map((o) => {
          const { parsed_arguments: _p, ...rest } = o as typeof o & { parsed_arguments?: unknown };
          return rest;
        });
      assert.deepEqual(items(streamed), items(plain));
      const custom = streamed.output[0];
      assert.ok(custom?.type === "custom_tool_call");
      assert.equal(custom.input, PATCH);
      const fn = streamed.output[1];
      assert.ok(fn?.type === "function_call");
      assert.equal(fn.namespace, "multi_agent_v1");
    },
  );
});

test("local_shell: the tool, its call (streamed and not) and its output, as OpenAI defines them", () => {
  const request = { input: "x", tools: [{ type: "local_shell" }] };
  const chat = responsesRequestToChat(request);
  assert.equal(chat.tools?.[0]?.function.name, "local_shell");
  assert.deepEqual(chat.tools?.[0]?.function.parameters?.required, ["command"]);

  const chunks = [
    chunk({
      tool_calls: [
        {
          index: 0,
          id: "call_l",
          type: "function",
          function: { name: "local_shell", arguments: '{"command":["ls","-l"],' },
        },
      ],
    }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: '"working_directory":"/w"}' } }] }),
    chunk({}, "tool_calls"),
  ];
  const plain = chatToResponsesResponse(fold(chunks), request, { responseId: "resp_1" });
  assert.deepEqual(plain.output, [
    {
      id: "lsh_10",
      type: "local_shell_call",
      status: "completed",
      call_id: "call_l",
      action: { type: "exec", command: ["ls", "-l"], env: {}, working_directory: "/w" },
    },
  ]);
  const events = translateAll(
    new ResponsesStreamTranslator(request, { responseId: "resp_1" }),
    chunks,
  );
  const types = events.map((e) => (e.data as { type: string }).type);
  assert.deepEqual(types.slice(2, -1), ["response.output_item.added", "response.output_item.done"]);
  const done = events[3]!.data as { item: unknown };
  assert.deepEqual(done.item, plain.output[0]);
  const completed = events.at(-1)!.data as { response: { output: unknown } };
  assert.deepEqual(completed.response.output, plain.output);

  // Sent back: the call, and its output naming the call by item id (or by call id).
  const next = responsesRequestToChat({
    ...request,
    input: [
      { role: "user", content: "x" },
      plain.output[0],
      { type: "local_shell_call_output", id: "lsh_10", output: "a.txt" },
    ],
  });
  assert.deepEqual(next.messages.slice(1), [
    {
      role: "assistant",
      content: null,
      tool_calls: [
        {
          id: "call_l",
          type: "function",
          function: {
            name: "local_shell",
            arguments: '{"command":["ls","-l"],"working_directory":"/w"}',
          },
        },
      ],
    },
    { role: "tool", tool_call_id: "call_l", content: "a.txt" },
  ]);
  const bad = chatToResponsesResponse(
    fold([
      chunk({
        tool_calls: [
          { index: 0, id: "c", function: { name: "local_shell", arguments: '{"command":"ls"}' } },
        ],
      }),
      chunk({}, "tool_calls"),
    ]),
    request,
  );
  assert.deepEqual((bad.output[0] as { action: { command: string[] } }).action.command, []);
});

test("developer messages: system, the leading ones folded with the instructions (as Codex sends them)", () => {
  const chat = responsesRequestToChat({
    instructions: "Base.",
    input: [
      { type: "message", role: "developer", content: [{ type: "input_text", text: "Skills." }] },
      { type: "message", role: "developer", content: [{ type: "input_text", text: "Perms." }] },
      { type: "message", role: "user", content: [{ type: "input_text", text: "Go." }] },
      { type: "message", role: "developer", content: "Later." },
    ],
  });
  assert.deepEqual(chat.messages, [
    { role: "system", content: "Base.\n\nSkills.\n\nPerms." },
    { role: "user", content: [{ type: "text", text: "Go." }] },
    { role: "system", content: "Later." },
  ]);
  // A leading message with an image is not text: folding stops there.
  const image = responsesRequestToChat({
    instructions: "Base.",
    input: [
      {
        role: "developer",
        content: [{ type: "input_image", image_url: "data:image/png;base64,AA" }],
      },
      { role: "user", content: "x" },
    ],
  });
  assert.equal(image.messages.length, 3);
  assert.equal(image.messages[1]!.role, "system");
});
