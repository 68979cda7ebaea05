import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { mulberry32 } from "../random.js";
import type { FakeRequestInfo } from "../testing/fake-upstream.js";
import { post, type Stack, startStack } from "../testing/harness.js";
import { ChatCompletionRequestSchema, type TraceRecord } from "../types/index.js";
import { plainChat } from "./agent-api.js";

/** The fake model: tool calls when tools are offered, reasoning when asked to think, else an echo. */
function respond(req: FakeRequestInfo) {
  const last = req.messages?.at(-1);
  const text = typeof last?.content === "string" ? last.content : req.promptText.slice(-20);
  if (req.tools?.length && last?.role === "user") {
    return {
      text: "",
      toolCalls: [
        { name: "get_weather", arguments: { city: "Paris", unit: "C" } },
        { name: "get_time", arguments: { tz: "Europe/Paris" } },
      ],
    };
  }
  if (text.includes("think"))
    return { text: `answer ${req.choiceIndex}`, reasoning: "let me think step by step" };
  return `Echo ${req.choiceIndex}: ${text}`;
}

const TOOLS = [
  {
    type: "function" as const,
    function: {
      name: "get_weather",
      parameters: { type: "object", properties: { city: { type: "string" } } },
    },
  },
  {
    type: "function" as const,
    function: {
      name: "get_time",
      parameters: { type: "object", properties: { tz: { type: "string" } } },
    },
  },
];

describe("agent API through the official clients", () => {
  let s: Stack;
  const trace = async (id: string | null) => (await s.admin(`/traces/${id}`)).body as TraceRecord;
  const traces = async (sessionId: string) =>
    ((await s.admin(`/sessions/${sessionId}/traces`)).body as { data: TraceRecord[] }).data;

  before(async () => {
    s = await startStack({ upstreams: [{ respond }] });
  });
  after(() => s.close());

  test("chat: the trace holds prompt ids, completion ids and logprobs; the agent sees a plain response", async () => {
    const sess = await s.session();
    const client = new OpenAI({ baseURL: `${sess.url}/v1`, apiKey: sess.token });
    const { data, response } = await client.chat.completions
      .create({ model: "m", messages: [{ role: "user", content: "hello" }] })
      .withResponse();
    assert.equal(data.choices[0]?.message.content, "Echo 0: hello");
    const raw = data as unknown as Record<string, unknown>;
    assert.equal(raw.prompt_token_ids, undefined, "vLLM-only fields are stripped");
    assert.equal((data.choices[0] as unknown as Record<string, unknown>).token_ids, undefined);
    assert.equal(data.choices[0]?.logprobs, null);
    const t = await trace(response.headers.get("x-rllm-trace-id"));
    assert.equal(t.sessionId, sess.id);
    assert.equal(t.tokenSource, "upstream");
    assert.ok(t.promptIds && t.promptIds.length > 5);
    const c = t.choices[0]!;
    assert.equal(c.content, "Echo 0: hello");
    assert.equal(c.completionIds?.length, c.logprobs?.length);
    assert.ok(c.logprobs!.every((x) => x < 0));
    assert.equal(t.promptTokens, t.promptIds!.length);
    assert.equal(t.completionTokens, c.completionIds!.length);
    assert.equal(t.status, 200);
    assert.equal(t.error, null);
    assert.deepEqual(t.messages, [{ role: "user", content: "hello" }]);
    // The upstream was asked for token ids and logprobs.
    const sent = s.upstreams[0]!.requests.at(-1)!.body as Record<string, unknown>;
    assert.equal(sent.return_token_ids, true);
    assert.equal(sent.logprobs, true);
  });

  test("chat: the agent that asks for logprobs and token ids gets them", async () => {
    const sess = await s.session();
    const r = await post(
      `${sess.url}/v1/chat/completions`,
      { messages: [{ role: "user", content: "x" }], logprobs: true, return_token_ids: true },
      sess.token,
    );
    const b = r.body as {
      prompt_token_ids: number[];
      choices: { token_ids: number[]; logprobs: { content: unknown[] } }[];
    };
    const t = await trace(r.headers.get("x-rllm-trace-id"));
    assert.deepEqual(b.prompt_token_ids, t.promptIds);
    assert.deepEqual(b.choices[0]?.token_ids, t.choices[0]?.completionIds);
    assert.equal(b.choices[0]?.logprobs.content.length, t.choices[0]?.logprobs?.length);
  });

  test("chat streaming: chunks pass through; the trace equals the non-streaming one", async () => {
    const sess = await s.session();
    const client = new OpenAI({ baseURL: `${sess.url}/v1`, apiKey: sess.token });
    const msgs = [{ role: "user" as const, content: "stream me" }];
    const plain = await client.chat.completions
      .create({ model: "m", messages: msgs, seed: 7 })
      .withResponse();
    const { data: stream, response } = await client.chat.completions
      .create({ model: "m", messages: msgs, seed: 7, stream: true })
      .withResponse();
    let text = "";
    let chunks = 0;
    for await (const c of stream) {
      chunks++;
      text += c.choices[0]?.delta.content ?? "";
      assert.equal((c as unknown as Record<string, unknown>).prompt_token_ids, undefined);
      assert.equal(c.usage ?? null, null, "no usage chunk unless asked");
    }
    assert.ok(chunks > 3);
    assert.equal(text, "Echo 0: stream me");
    const a = await trace(plain.response.headers.get("x-rllm-trace-id"));
    const b = await trace(response.headers.get("x-rllm-trace-id"));
    assert.equal(b.stream, true);
    assert.deepEqual(b.promptIds, a.promptIds);
    assert.deepEqual(b.choices, a.choices);
  });

  test("chat streaming with include_usage gets the usage chunk", async () => {
    const sess = await s.session();
    const client = new OpenAI({ baseURL: `${sess.url}/v1`, apiKey: sess.token });
    const stream = await client.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "u" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let usage: unknown = null;
    for await (const c of stream) if (c.usage) usage = c.usage;
    assert.ok(usage && (usage as { completion_tokens: number }).completion_tokens > 0);
  });

  test("tool calls: merged from streamed deltas by index, same as non-streaming", async () => {
    const sess = await s.session();
    const client = new OpenAI({ baseURL: `${sess.url}/v1`, apiKey: sess.token });
    const msgs = [{ role: "user" as const, content: "weather?" }];
    const plain = await client.chat.completions
      .create({ model: "m", messages: msgs, tools: TOOLS })
      .withResponse();
    const calls = plain.data.choices[0]?.message.tool_calls ?? [];
    assert.equal(plain.data.choices[0]?.finish_reason, "tool_calls");
    assert.deepEqual(
      calls.map((c) =>
        c.type === "function" ? [c.function.name, JSON.parse(c.function.arguments)] : null,
      ),
      [
        ["get_weather", { city: "Paris", unit: "C" }],
        ["get_time", { tz: "Europe/Paris" }],
      ],
    );
    const stream = client.chat.completions.stream({ model: "m", messages: msgs, tools: TOOLS });
    const final = await stream.finalChatCompletion();
    assert.deepEqual(
      final.choices[0]?.message.tool_calls?.map((c) => (c.type === "function" ? c.function : null)),
      calls.map((c) => (c.type === "function" ? c.function : null)),
    );
    const ts = await traces(sess.id);
    assert.equal(ts.length, 2);
    // the same calls; each request's calls have ids of their own, as vLLM's do
    const named = (t: (typeof ts)[number]) =>
      t.choices[0]!.toolCalls?.map(({ id: _, ...call }) => call);
    assert.deepEqual(named(ts[1]!), named(ts[0]!));
    assert.equal(ts[1]!.choices[0]!.toolCalls?.length, 2);
    assert.notEqual(ts[1]!.choices[0]!.toolCalls![0]!.id, ts[0]!.choices[0]!.toolCalls![0]!.id);
    assert.deepEqual(
      ts[1]!.choices[0]!.toolCalls!.map((c) => c.id),
      final.choices[0]!.message.tool_calls!.map((c) => c.id),
    );
    assert.deepEqual(ts[1]!.choices[0]!.completionIds, ts[0]!.choices[0]!.completionIds);
  });

  test("reasoning is kept in the trace, streamed or not", async () => {
    const sess = await s.session();
    const client = new OpenAI({ baseURL: `${sess.url}/v1`, apiKey: sess.token });
    await client.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "think" }],
    });
    const stream = await client.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "think" }],
      stream: true,
    });
    for await (const _ of stream) {
      // drain
    }
    const ts = await traces(sess.id);
    for (const t of ts) {
      assert.equal(t.choices[0]?.reasoning, "let me think step by step");
      assert.equal(t.choices[0]?.content, "answer 0");
    }
  });

  test("n > 1: every choice is recorded with its own ids", async () => {
    const sess = await s.session();
    const client = new OpenAI({ baseURL: `${sess.url}/v1`, apiKey: sess.token });
    const r = await client.chat.completions
      .create({ model: "m", messages: [{ role: "user", content: "many" }], n: 3 })
      .withResponse();
    assert.deepEqual(
      r.data.choices.map((c) => c.message.content),
      ["Echo 0: many", "Echo 1: many", "Echo 2: many"],
    );
    const t = await trace(r.response.headers.get("x-rllm-trace-id"));
    assert.equal(t.choices.length, 3);
    assert.notDeepEqual(t.choices[0]!.completionIds, t.choices[1]!.completionIds);
    const stream = await client.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "many" }],
      n: 2,
      stream: true,
    });
    const texts = ["", ""];
    for await (const c of stream)
      for (const ch of c.choices) texts[ch.index] += ch.delta.content ?? "";
    assert.deepEqual(texts, ["Echo 0: many", "Echo 1: many"]);
  });

  test("session sampling parameters are enforced on every call; --model pins the name", async () => {
    await s.close();
    s = await startStack({ upstreams: [{ respond }], gateway: { model: "pinned-model" } });
    const sess = await s.session({
      samplingParams: { temperature: 0.3, max_tokens: 5, stop: ["\n\n"] },
    });
    const client = new OpenAI({ baseURL: `${sess.url}/v1`, apiKey: sess.token });
    await client.chat.completions.create({
      model: "agent-choice",
      messages: [{ role: "user", content: "a long prompt to be cut" }],
      temperature: 1.5,
      max_completion_tokens: 999,
    });
    const sent = s.upstreams[0]!.requests.at(-1)!.body as Record<string, unknown>;
    assert.equal(sent.temperature, 0.3);
    assert.equal(sent.max_tokens, 5);
    assert.equal(sent.max_completion_tokens, undefined);
    assert.deepEqual(sent.stop, ["\n\n"]);
    assert.equal(sent.model, "pinned-model");
    const ts = await traces(sess.id);
    assert.equal(ts[0]!.choices[0]!.finishReason, "length");
    assert.equal(ts[0]!.choices[0]!.completionIds?.length, 5);
    const models = await client.models.list();
    assert.deepEqual(
      models.data.map((m) => m.id),
      ["pinned-model"],
    );
  });

  test("completions API: prompt strings and token ids, streaming or not", async () => {
    const sess = await s.session();
    const client = new OpenAI({ baseURL: `${sess.url}/v1`, apiKey: sess.token });
    const r = await client.completions
      .create({ model: "m", prompt: "Once upon", max_tokens: 4 })
      .withResponse();
    assert.equal(typeof r.data.choices[0]?.text, "string");
    assert.equal(r.data.choices[0]?.logprobs, null, "logprobs stripped when not asked");
    const t = await trace(r.response.headers.get("x-rllm-trace-id"));
    assert.equal(t.api, "completions");
    assert.equal(t.choices[0]?.completionIds?.length, 4);
    assert.equal(t.choices[0]?.logprobs?.length, 4);
    assert.ok(t.promptIds!.length > 0);
    const stream = await client.completions.create({
      model: "m",
      prompt: [5, 6, 7],
      max_tokens: 3,
      stream: true,
    });
    let n = 0;
    for await (const c of stream) n += c.choices.length;
    assert.ok(n >= 3);
    const all = await traces(sess.id);
    assert.deepEqual(all[1]!.promptIds, [5, 6, 7]);
    assert.equal(all[1]!.choices[0]!.completionIds?.length, 3);
  });

  test("Responses API, with tools, streaming and not", async () => {
    const sess = await s.session();
    const client = new OpenAI({ baseURL: `${sess.url}/v1`, apiKey: sess.token });
    const r = await client.responses.create({
      model: "m",
      input: "hello there",
      instructions: "be brief",
    });
    assert.equal(r.output_text, "Echo 0: hello there");
    const tools = TOOLS.map((t) => ({
      type: "function" as const,
      name: t.function.name,
      parameters: t.function.parameters,
      strict: false,
    }));
    const withTools = await client.responses.create({ model: "m", input: "weather?", tools });
    const calls = withTools.output.filter((o) => o.type === "function_call");
    assert.deepEqual(
      calls.map((c) => c.name),
      ["get_weather", "get_time"],
    );
    const stream = client.responses.stream({
      model: "m",
      input: "hello there",
      instructions: "be brief",
    });
    const deltas: string[] = [];
    stream.on("response.output_text.delta", (e) => deltas.push(e.delta));
    const final = await stream.finalResponse();
    assert.equal(final.output_text, "Echo 0: hello there");
    assert.equal(deltas.join(""), "Echo 0: hello there");
    const ts = await traces(sess.id);
    assert.deepEqual(
      ts.map((t) => t.api),
      ["responses", "responses", "responses"],
    );
    assert.deepEqual(ts[0]!.messages, [
      { role: "system", content: "be brief" },
      { role: "user", content: "hello there" },
    ]);
    assert.deepEqual(ts[2]!.choices, ts[0]!.choices);
  });

  test("Anthropic Messages via ANTHROPIC_BASE_URL=<session url>, tools and streaming", async () => {
    const sess = await s.session();
    const client = new Anthropic({ baseURL: sess.url, apiKey: sess.token });
    const m = await client.messages.create({
      model: "claude-x",
      max_tokens: 512,
      system: "be brief",
      messages: [{ role: "user", content: "hello claude" }],
    });
    assert.equal(m.content[0]?.type === "text" ? m.content[0].text : null, "Echo 0: hello claude");
    assert.equal(m.stop_reason, "end_turn");
    const tools = TOOLS.map((t) => ({
      name: t.function.name,
      input_schema: t.function.parameters as Anthropic.Tool.InputSchema,
    }));
    const tm = await client.messages.create({
      model: "c",
      max_tokens: 512,
      tools,
      messages: [{ role: "user", content: "weather?" }],
    });
    assert.equal(tm.stop_reason, "tool_use");
    const uses = tm.content.filter((b) => b.type === "tool_use");
    assert.deepEqual(
      uses.map((u) => u.input),
      [{ city: "Paris", unit: "C" }, { tz: "Europe/Paris" }],
    );
    // The tool results go back; the conversation continues.
    const follow = await client.messages.create({
      model: "c",
      max_tokens: 512,
      tools,
      messages: [
        { role: "user", content: "weather?" },
        { role: "assistant", content: tm.content },
        {
          role: "user",
          content: uses.map((u) => ({
            type: "tool_result" as const,
            tool_use_id: u.id,
            content: "sunny",
          })),
        },
      ],
    });
    assert.equal(follow.content[0]?.type, "text");
    const stream = client.messages.stream({
      model: "c",
      max_tokens: 512,
      messages: [{ role: "user", content: "hello claude" }],
    });
    const final = await stream.finalMessage();
    assert.deepEqual(final.content, m.content);
    const ts = await traces(sess.id);
    assert.deepEqual(
      ts.map((t) => t.api),
      Array(4).fill("anthropic.messages"),
    );
    const toolMsgs = ts[2]!.messages!.filter((x) => x.role === "tool");
    assert.equal(toolMsgs.length, 2);
    assert.equal(ts[3]!.stream, true);
  });

  test("Anthropic errors come back in Anthropic's shape", async () => {
    const sess = await s.session();
    const client = new Anthropic({ baseURL: sess.url, apiKey: "wrong-token", maxRetries: 0 });
    await assert.rejects(
      client.messages.create({
        model: "c",
        max_tokens: 8,
        messages: [{ role: "user", content: "x" }],
      }),
      (e: unknown) => e instanceof Anthropic.PermissionDeniedError,
    );
    const r = await post(`${sess.url}/v1/messages`, { model: "c", messages: [] }, sess.token);
    assert.equal(r.status, 400);
    const b = r.body as { type: string; error: { type: string; message: string } };
    assert.equal(b.type, "error");
    assert.equal(b.error.type, "invalid_request_error");
    assert.match(b.error.message, /max_tokens/);
  });
});

describe("the hand-checked chat request", () => {
  test("accepts only what zod accepts, and gives the same request (keys aside)", () => {
    const rnd = mulberry32(7);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
    const values = [
      undefined,
      null,
      0,
      1,
      -1,
      0.5,
      2,
      2.5,
      20,
      21,
      128,
      129,
      1e300,
      "x",
      true,
      [],
      {},
      ["a"],
      [1],
    ];
    const fields = [
      "model",
      "stream",
      "stream_options",
      "n",
      "temperature",
      "top_p",
      "max_tokens",
      "max_completion_tokens",
      "stop",
      "logprobs",
      "top_logprobs",
      "seed",
      "tools",
      "extra",
    ];
    const messageFields = [
      "role",
      "content",
      "name",
      "tool_calls",
      "tool_call_id",
      "reasoning_content",
      "x",
    ];
    const roles = ["system", "user", "assistant", "tool", "developer", "function", "wizard", 3];
    let fast = 0;
    for (let i = 0; i < 20_000; i++) {
      const body: Record<string, unknown> = {};
      for (const f of fields) if (rnd() < 0.08) body[f] = pick(values);
      const messages: unknown[] = [];
      const n = Math.floor(rnd() * 3);
      for (let j = 0; j < n; j++) {
        const m: Record<string, unknown> = {
          role: pick(roles),
          content: rnd() < 0.8 ? "hi" : pick(values),
        };
        for (const f of messageFields) if (rnd() < 0.04) m[f] = pick(values);
        messages.push(rnd() < 0.97 ? m : pick(values));
      }
      if (rnd() < 0.97) body.messages = messages;
      else body.messages = pick(values);
      const mine = plainChat(body);
      const theirs = ChatCompletionRequestSchema.safeParse(body);
      if (mine === undefined) continue;
      fast++;
      assert.ok(theirs.success, `zod rejects what the fast path took: ${JSON.stringify(body)}`);
      assert.deepEqual(mine, theirs.data);
      assert.notEqual(mine, body, "a copy, like zod's");
    }
    assert.ok(fast > 1_000, `the fast path took ${fast} requests`);
  });
});
