/**
 * The Gemini dialect, checked against the public API reference: the request body
 * (https://ai.google.dev/api/generate-content#request-body; Content/Part:
 * https://ai.google.dev/api/caching#Content; Tool/FunctionDeclaration/ToolConfig:
 * https://ai.google.dev/api/caching#Tool), GenerateContentResponse and its usageMetadata
 * (https://ai.google.dev/api/generate-content#generatecontentresponse), the SSE stream of
 * `streamGenerateContent?alt=sse`, and Google's error body
 * (https://ai.google.dev/gemini-api/docs/troubleshooting). The real Gemini CLI runs against the
 * same code in src/agents/harness/codex-gemini.test.ts.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { post, startStack } from "../../testing/harness.js";
import { chunk, expectHttp400, fold, translateAll, usageChunk } from "../../testing/sse-replay.js";
import type { ChatCompletionChunk, TraceRecord } from "../../types/index.js";
import { SseParser } from "../http.js";
import {
  chatToGeminiResponse,
  type GeminiResponse,
  GeminiStreamTranslator,
  geminiRequestToChat,
} from "./gemini/index.js";

const CALL = { model: "gemini-test", stream: false };

test("request: system instruction, turns, calls and responses, tools and generation config", () => {
  const chat = geminiRequestToChat(
    {
      systemInstruction: { parts: [{ text: "Be brief." }, { text: "Use tools." }] },
      contents: [
        { role: "user", parts: [{ text: "Make a file." }] },
        {
          role: "model",
          parts: [
            { text: "I should write it.", thought: true, thoughtSignature: "sig" },
            { text: "Writing." },
            { functionCall: { id: "c1", name: "write_file", args: { path: "a", content: "x" } } },
            { functionCall: { name: "ls", args: {} } },
          ],
        },
        {
          role: "user",
          parts: [
            { functionResponse: { name: "ls", response: { output: "a" } } },
            { functionResponse: { id: "c1", name: "write_file", response: { ok: true } } },
            { text: "Thanks." },
          ],
        },
      ],
      tools: [
        {
          functionDeclarations: [
            {
              name: "write_file",
              description: "Writes a file.",
              parametersJsonSchema: { type: "object", properties: { path: { type: "string" } } },
            },
            {
              name: "ls",
              parameters: {
                type: "OBJECT",
                properties: { dir: { type: "STRING", nullable: true } },
                propertyOrdering: ["dir"],
              },
            },
          ],
        },
      ],
      toolConfig: { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["ls"] } },
      safetySettings: [{ category: "HARM_CATEGORY_HARASSMENT", threshold: "BLOCK_NONE" }],
      generationConfig: {
        temperature: 0.5,
        topP: 0.9,
        topK: 40,
        maxOutputTokens: 64,
        stopSequences: ["END"],
        seed: 7,
        responseMimeType: "application/json",
        thinkingConfig: { includeThoughts: true },
      },
    },
    CALL,
  );
  assert.deepEqual(chat, {
    model: "gemini-test",
    messages: [
      { role: "system", content: "Be brief.\nUse tools." },
      { role: "user", content: [{ type: "text", text: "Make a file." }] },
      {
        role: "assistant",
        content: "Writing.",
        reasoning_content: "I should write it.",
        tool_calls: [
          {
            id: "c1",
            type: "function",
            function: { name: "write_file", arguments: '{"path":"a","content":"x"}' },
          },
          { id: "call_1", type: "function", function: { name: "ls", arguments: "{}" } },
        ],
      },
      { role: "tool", tool_call_id: "call_1", content: "a" },
      { role: "tool", tool_call_id: "c1", content: '{"ok":true}' },
      { role: "user", content: [{ type: "text", text: "Thanks." }] },
    ],
    tools: [
      {
        type: "function",
        function: {
          name: "ls",
          parameters: { type: "object", properties: { dir: { type: ["string", "null"] } } },
        },
      },
    ],
    tool_choice: { type: "function", function: { name: "ls" } },
    temperature: 0.5,
    top_p: 0.9,
    top_k: 40,
    max_tokens: 64,
    stop: ["END"],
    seed: 7,
    response_format: { type: "json_object" },
  });
  const streamed = geminiRequestToChat(
    { contents: [{ parts: [{ text: "hi" }] }] },
    { ...CALL, stream: true },
  );
  assert.equal(streamed.stream, true);
  assert.deepEqual(streamed.stream_options, { include_usage: true });
  const image = geminiRequestToChat(
    {
      contents: [
        { role: "user", parts: [{ inlineData: { mimeType: "image/png", data: "AAA=" } }] },
      ],
    },
    CALL,
  );
  assert.deepEqual(image.messages, [
    {
      role: "user",
      content: [{ type: "image_url", image_url: { url: "data:image/png;base64,AAA=" } }],
    },
  ]);
});

test("request: what cannot be served is a 400 naming the field", () => {
  const user = (parts: unknown[]) => [{ role: "user", parts }];
  expectHttp400(() => geminiRequestToChat({ contents: [] }, CALL), "contents");
  expectHttp400(
    () => geminiRequestToChat({ contents: user([{ text: "x" }]), cachedContent: "c/1" }, CALL),
    "cachedContent",
  );
  expectHttp400(
    () =>
      geminiRequestToChat({ contents: user([{ text: "x" }]), tools: [{ googleSearch: {} }] }, CALL),
    "tools.0.googleSearch",
    "hosted tools",
  );
  expectHttp400(
    () => geminiRequestToChat({ contents: user([{ fileData: { fileUri: "gs://x" } }]) }, CALL),
    "contents.0.parts.0.fileData",
  );
  expectHttp400(
    () =>
      geminiRequestToChat({ contents: user([{ text: "x", functionCall: { name: "f" } }]) }, CALL),
    "contents.0.parts.0",
    "one kind of data",
  );
  expectHttp400(
    () =>
      geminiRequestToChat(
        { contents: user([{ functionResponse: { name: "f", response: {} } }]) },
        CALL,
      ),
    "contents.0.parts.0.functionResponse",
    "answers no earlier functionCall",
  );
  expectHttp400(
    () =>
      geminiRequestToChat(
        { contents: user([{ inlineData: { mimeType: "audio/wav", data: "AA" } }]) },
        CALL,
      ),
    "contents.0.parts.0.inlineData.mimeType",
  );
  expectHttp400(
    () =>
      geminiRequestToChat(
        { contents: user([{ text: "x" }]), generationConfig: { candidateCount: 2 } },
        CALL,
      ),
    "generationConfig.candidateCount",
  );
  expectHttp400(
    () => geminiRequestToChat({ contents: [{ role: "system", parts: [] }] }, CALL),
    "contents.0.role",
  );
  expectHttp400(
    () =>
      geminiRequestToChat(
        {
          contents: user([{ text: "x" }]),
          tools: [{ functionDeclarations: [{ name: "f" }] }],
          toolConfig: { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["g"] } },
        },
        CALL,
      ),
    "toolConfig.functionCallingConfig.allowedFunctionNames.0",
    "'g' is not a declared function",
  );
});

/** Reasoning, text, then two calls whose arguments arrive in pieces. */
const callChunks = (): ChatCompletionChunk[] => [
  chunk({ role: "assistant", content: "" }),
  chunk({ reasoning_content: "Think." }),
  chunk({ content: "On " }),
  chunk({ content: "it." }),
  chunk({
    tool_calls: [
      { index: 0, id: "c_a", type: "function", function: { name: "ls", arguments: "" } },
    ],
  }),
  chunk({ tool_calls: [{ index: 0, function: { arguments: '{"dir":' } }] }),
  chunk({ tool_calls: [{ index: 0, function: { arguments: '"/"}' } }] }),
  chunk({
    tool_calls: [
      { index: 1, id: "c_b", type: "function", function: { name: "pwd", arguments: "{}" } },
    ],
  }),
  chunk({}, "tool_calls"),
  usageChunk(30, 12, { completion_tokens_details: { reasoning_tokens: 2 } }),
];

const EXPECTED_PARTS = [
  { text: "Think.", thought: true },
  { text: "On it." },
  {
    functionCall: { id: "c_a", name: "ls", args: { dir: "/" } },
    thoughtSignature: `rllm-reasoning:${Buffer.from("Think.").toString("base64")}`,
  },
  { functionCall: { id: "c_b", name: "pwd", args: {} } },
];

test("reasoning: carried in the thoughtSignature and restored when the client drops thought parts", () => {
  const res = chatToGeminiResponse(fold(callChunks()));
  // What Gemini CLI sends back: the turn without its thought part, the signature kept.
  const parts = res.candidates[0]!.content.parts.filter((p) => !("thought" in p && p.thought));
  const chat = geminiRequestToChat(
    {
      contents: [
        { role: "user", parts: [{ text: "go" }] },
        { role: "model", parts },
        { role: "user", parts: [{ functionResponse: { id: "c_a", name: "ls", response: {} } }] },
        { role: "user", parts: [{ functionResponse: { id: "c_b", name: "pwd", response: {} } }] },
      ],
    },
    CALL,
  );
  assert.equal(chat.messages[1]!.reasoning_content, "Think.");
  assert.equal(chat.messages[1]!.content, "On it.");
  // A signature of another issuer (Gemini CLI's synthetic one) carries nothing.
  const other = geminiRequestToChat(
    {
      contents: [
        {
          role: "model",
          parts: [
            { functionCall: { name: "f" }, thoughtSignature: "skip_thought_signature_validator" },
          ],
        },
      ],
    },
    CALL,
  );
  assert.equal(other.messages[0]!.reasoning_content, undefined);
  // A turn without calls carries the signature on its text, streamed or not.
  const textOnly = [
    chunk({ reasoning_content: "Hm." }),
    chunk({ content: "Yes." }),
    chunk({}, "stop"),
  ];
  const signature = `rllm-reasoning:${Buffer.from("Hm.").toString("base64")}`;
  assert.deepEqual(chatToGeminiResponse(fold(textOnly)).candidates[0]!.content.parts, [
    { text: "Hm.", thought: true },
    { text: "Yes.", thoughtSignature: signature },
  ]);
  const events = translateAll(new GeminiStreamTranslator("m"), textOnly);
  const last = (events.at(-1)!.data as GeminiResponse).candidates[0]!;
  assert.deepEqual(last.content.parts, [{ text: "", thoughtSignature: signature }]);
});

test("response: parts in order, calls with ids, STOP, usage with thoughts apart", () => {
  assert.deepEqual(chatToGeminiResponse(fold(callChunks()), { responseId: "r1" }), {
    candidates: [
      { content: { role: "model", parts: EXPECTED_PARTS }, finishReason: "STOP", index: 0 },
    ],
    usageMetadata: {
      promptTokenCount: 30,
      candidatesTokenCount: 10,
      totalTokenCount: 42,
      thoughtsTokenCount: 2,
    },
    modelVersion: "qwen3-8b",
    responseId: "r1",
  });
});

test("response: finish reasons; a call with non-object arguments is MALFORMED_FUNCTION_CALL", () => {
  const finish = (chunks: ChatCompletionChunk[]) =>
    chatToGeminiResponse(fold(chunks)).candidates[0]!;
  assert.equal(finish([chunk({ content: "x" }), chunk({}, "length")]).finishReason, "MAX_TOKENS");
  assert.equal(
    finish([chunk({ content: "x" }), chunk({}, "content_filter")]).finishReason,
    "SAFETY",
  );
  const empty = finish([chunk({}, "stop")]);
  assert.deepEqual(empty.content.parts, [{ text: "" }]);
  const bad = finish([
    chunk({ tool_calls: [{ index: 0, id: "c", function: { name: "f", arguments: "[1," } }] }),
    chunk({}, "tool_calls"),
  ]);
  assert.equal(bad.finishReason, "MALFORMED_FUNCTION_CALL");
  assert.deepEqual(bad.content.parts, [{ text: "" }]);
});

test("stream: text as it comes, calls whole in the last chunk with finishReason and usage", () => {
  const events = translateAll(new GeminiStreamTranslator("m", { responseId: "r1" }), callChunks());
  const chunks = events.map((e) => e.data as GeminiResponse);
  for (const e of events) assert.equal(e.event, undefined, "plain data: events");
  assert.deepEqual(
    chunks.map((c) => c.candidates[0]!.content.parts),
    [
      [{ text: "Think.", thought: true }],
      [{ text: "On " }],
      [{ text: "it." }],
      EXPECTED_PARTS.slice(2),
    ],
  );
  assert.ok(chunks.slice(0, -1).every((c) => !c.candidates[0]!.finishReason && !c.usageMetadata));
  const last = chunks.at(-1)!;
  assert.equal(last.candidates[0]!.finishReason, "STOP");
  assert.deepEqual(last.usageMetadata, chatToGeminiResponse(fold(callChunks())).usageMetadata);
  assert.ok(chunks.every((c) => c.responseId === "r1" && c.modelVersion === "qwen3-8b"));

  const failed = new GeminiStreamTranslator("m");
  failed.push(chunk({ content: "x" }));
  assert.deepEqual(failed.fail({ status: 502, message: "upstream broke off" }), [
    { data: { error: { code: 502, message: "upstream broke off", status: "INTERNAL" } } },
  ]);
  assert.deepEqual(failed.finish(), [], "nothing after the error");
});

test("gateway: generateContent and streamGenerateContent?alt=sse by session, key header or ?key=", async () => {
  const stack = await startStack({ upstreams: [{ respond: () => "Hello there" }] });
  try {
    const s = await stack.session();
    const url = (method: string, query = "") =>
      `${s.url}/v1beta/models/my%2Fmodel:${method}${query}`;
    const body = { contents: [{ role: "user", parts: [{ text: "hi" }] }] };

    const plain = await post<GeminiResponse>(url("generateContent"), body, undefined, {
      "x-goog-api-key": s.token,
    });
    assert.equal(plain.status, 200, plain.text);
    assert.deepEqual(plain.body.candidates[0]!.content.parts, [{ text: "Hello there" }]);
    assert.equal(plain.body.candidates[0]!.finishReason, "STOP");
    assert.ok(plain.body.usageMetadata!.promptTokenCount > 0);

    const byQuery = await post<GeminiResponse>(url("generateContent", `?key=${s.token}`), body);
    assert.equal(byQuery.status, 200, byQuery.text);
    // The session named by a header, under the v1 API version.
    const byHeader = await post<GeminiResponse>(
      `${stack.url}/v1/models/m:generateContent`,
      body,
      undefined,
      {
        "x-session-id": s.id,
        "x-goog-api-key": s.token,
      },
    );
    assert.equal(byHeader.status, 200, byHeader.text);

    const streamed = await post(url("streamGenerateContent", "?alt=sse"), body, undefined, {
      "x-goog-api-key": s.token,
    });
    assert.equal(streamed.status, 200);
    assert.match(streamed.headers.get("content-type") ?? "", /text\/event-stream/);
    const events = new SseParser()
      .push(streamed.text)
      .map((e) => JSON.parse(e.data) as GeminiResponse);
    const text = events.flatMap((e) =>
      e.candidates[0]!.content.parts.map((p) => ("text" in p ? p.text : "")),
    );
    assert.equal(text.join(""), "Hello there");
    assert.equal(events.at(-1)!.candidates[0]!.finishReason, "STOP");

    const traces = (await stack.admin(`/sessions/${encodeURIComponent(s.id)}/traces`)).body as {
      data: TraceRecord[];
    };
    assert.deepEqual(
      traces.data.map((t) => [t.api, t.stream, t.status]),
      [
        ["gemini.generateContent", false, 200],
        ["gemini.generateContent", false, 200],
        ["gemini.generateContent", false, 200],
        ["gemini.generateContent", true, 200],
      ],
    );
    assert.ok(
      traces.data.every(
        (t) => (t.promptIds?.length ?? 0) > 0 && (t.choices[0]?.completionIds?.length ?? 0) > 0,
      ),
    );
    assert.equal((traces.data[0]!.request as { contents: unknown[] }).contents.length, 1);

    // Errors come in Google's shape.
    const noKey = await post<{ error: { code: number; status: string } }>(
      url("generateContent"),
      body,
    );
    assert.equal(noKey.status, 401);
    assert.deepEqual([noKey.body.error.code, noKey.body.error.status], [401, "UNAUTHENTICATED"]);
    const noAlt = await post<{ error: { message: string; status: string } }>(
      url("streamGenerateContent"),
      body,
      s.token,
    );
    assert.equal(noAlt.status, 400);
    assert.equal(noAlt.body.error.status, "INVALID_ARGUMENT");
    assert.match(noAlt.body.error.message, /alt=sse/);
    const bad = await post<{ error: { message: string } }>(
      url("generateContent"),
      { contents: "hi" },
      s.token,
    );
    assert.equal(bad.status, 400);
    assert.match(bad.body.error.message, /contents/);
  } finally {
    await stack.close();
  }
});

test("gateway: a body nested too deep for the code that walks it is a 400 in Google's shape, not a 500", async () => {
  const stack = await startStack({ upstreams: [{ respond: () => "Hello there" }] });
  try {
    const s = await stack.session();
    const depth = 20_000;
    const deep = `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
    const body = `{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"tools":[{"functionDeclarations":[{"name":"f","parametersJsonSchema":${deep}}]}]}`;
    for (const method of ["generateContent", "streamGenerateContent?alt=sse"]) {
      const r = await post<{ error: { code: number; message: string; status: string } }>(
        `${s.url}/v1beta/models/m:${method}`,
        body,
        s.token,
      );
      assert.equal(r.status, 400, r.text);
      assert.deepEqual([r.body.error.code, r.body.error.status], [400, "INVALID_ARGUMENT"]);
      assert.match(r.body.error.message, /nested deeper than 512 levels/);
    }
  } finally {
    await stack.close();
  }
});
