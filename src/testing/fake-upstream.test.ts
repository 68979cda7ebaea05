import assert from "node:assert/strict";
import net from "node:net";
import { after, before, describe, it } from "node:test";
import type { ChatMessage } from "../types/chat.js";
import {
  byteTokenizer,
  type FakeUpstream,
  type FakeUpstreamOptions,
  fakeLogprob,
  IM_END_TOKEN_ID,
  renderChatML,
  startFakeUpstream,
} from "./fake-upstream.js";

// biome-ignore lint/suspicious/noExplicitAny: loose access to JSON response bodies in tests
type J = Record<string, any>;

async function post(u: FakeUpstream, path: string, body: unknown, init: RequestInit = {}) {
  return fetch(u.url + path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
    ...init,
  });
}

async function postJson(u: FakeUpstream, path: string, body: unknown): Promise<J> {
  const r = await post(u, path, body);
  assert.equal(r.status, 200, await r.clone().text());
  return (await r.json()) as J;
}

/** The SSE events of a streamed response: parsed JSON objects, then "[DONE]" if present. */
async function sse(u: FakeUpstream, path: string, body: unknown): Promise<(J | "[DONE]")[]> {
  const r = await post(u, path, body);
  assert.equal(r.status, 200);
  assert.match(r.headers.get("content-type") ?? "", /^text\/event-stream/);
  const text = await r.text();
  assert.ok(text.endsWith("\n\n"));
  return text
    .split("\n\n")
    .filter((e) => e.length > 0)
    .map((e) => {
      assert.ok(e.startsWith("data: "), e);
      const d = e.slice(6);
      return d === "[DONE]" ? "[DONE]" : (JSON.parse(d) as J);
    });
}

function objs(events: (J | "[DONE]")[]): J[] {
  assert.equal(events.at(-1), "[DONE]");
  assert.equal(events.filter((e) => e === "[DONE]").length, 1);
  return events.slice(0, -1) as J[];
}

const user = (content: string): ChatMessage => ({ role: "user", content });
const enc = (s: string) => byteTokenizer.encode(s);

async function withUpstream(opts: FakeUpstreamOptions, fn: (u: FakeUpstream) => Promise<void>) {
  const u = await startFakeUpstream(opts);
  try {
    await fn(u);
  } finally {
    await u.close();
  }
}

describe("byte tokenizer", () => {
  it("round-trips text, maps ChatML specials to single ids", () => {
    const s = `<|im_start|>user\nhé 🙂<|im_end|>\n`;
    const ids = enc(s);
    assert.equal(ids[0], 1);
    assert.ok(ids.includes(IM_END_TOKEN_ID));
    assert.equal(byteTokenizer.decode(ids), s);
    assert.deepEqual(enc("A"), [65 + 3]);
  });
  it("fakeLogprob is deterministic, negative and seed dependent", () => {
    assert.equal(fakeLogprob(10, 3), fakeLogprob(10, 3));
    assert.ok(fakeLogprob(10, 3) < 0);
    assert.ok(fakeLogprob(1, 1_000_000, -5) < 0);
    assert.notEqual(fakeLogprob(10, 3, 1), fakeLogprob(10, 3, 2));
  });
});

describe("vllm chat completions", () => {
  let u: FakeUpstream;
  before(async () => {
    u = await startFakeUpstream({
      kind: "vllm",
      respond: (r) => {
        const last = r.messages?.at(-1);
        const text = typeof last?.content === "string" ? last.content : "";
        if (text === "tool")
          return {
            text: "",
            reasoning: "need weather",
            toolCalls: [
              { name: "get_weather", arguments: { city: "Paris" } },
              { name: "get_time", arguments: '{"tz": "CET"}' },
            ],
          };
        if (text === "think") return { text: "The answer.", reasoning: "Let me think." };
        return r.choiceIndex === 0 ? `Echo: ${text}` : `Other ${r.choiceIndex}: ${text}`;
      },
    });
  });
  after(() => u.close());

  it("non-streaming: shape, token ids, prompt ids, usage", async () => {
    const messages = [{ role: "system", content: "be brief" } as ChatMessage, user("hi")];
    const body = await postJson(u, "/v1/chat/completions", {
      model: "x",
      messages,
      return_token_ids: true,
    });
    assert.match(body.id, /^chatcmpl-[0-9a-f]{32}$/);
    assert.equal(body.object, "chat.completion");
    assert.equal(body.model, "fake-model");
    assert.equal(typeof body.created, "number");
    assert.equal(body.choices.length, 1);
    const c = body.choices[0];
    assert.equal(c.index, 0);
    assert.deepEqual(c.message, { role: "assistant", content: "Echo: hi", reasoning: null });
    assert.equal(c.finish_reason, "stop");
    assert.equal(c.stop_reason, null);
    assert.equal(c.logprobs, null);
    assert.deepEqual(c.token_ids, [...enc("Echo: hi"), IM_END_TOKEN_ID]);
    assert.deepEqual(body.prompt_token_ids, enc(renderChatML(messages)));
    assert.deepEqual(body.usage, {
      prompt_tokens: body.prompt_token_ids.length,
      total_tokens: body.prompt_token_ids.length + c.token_ids.length,
      completion_tokens: c.token_ids.length,
    });
  });

  it("without return_token_ids the id fields are null", async () => {
    const body = await postJson(u, "/v1/chat/completions", { messages: [user("hi")] });
    assert.equal(body.prompt_token_ids, null);
    assert.equal(body.choices[0].token_ids, null);
    assert.equal(body.usage.prompt_tokens, enc(renderChatML([user("hi")])).length);
    assert.equal(body.usage.completion_tokens, enc("Echo: hi").length + 1);
  });

  it("logprobs with top_logprobs: one entry per token id, deterministic values", async () => {
    const body = await postJson(u, "/v1/chat/completions", {
      messages: [user("hi")],
      logprobs: true,
      top_logprobs: 3,
      return_token_ids: true,
      seed: 7,
    });
    const c = body.choices[0];
    const content = c.logprobs.content as J[];
    assert.equal(content.length, c.token_ids.length);
    content.forEach((e, i) => {
      assert.equal(e.logprob, fakeLogprob(c.token_ids[i], i, 7));
      assert.deepEqual(e.bytes, [...Buffer.from(e.token, "utf8")]);
      assert.equal(e.top_logprobs.length, 3);
      assert.equal(e.top_logprobs[0].token, e.token);
      assert.ok(e.top_logprobs[1].logprob < e.top_logprobs[0].logprob);
    });
    assert.equal(content.at(-1)?.token, "<|im_end|>");
  });

  it("streaming matches non-streaming (text, token ids, usage)", async () => {
    const req = {
      messages: [user("héllo 🙂")],
      return_token_ids: true,
      logprobs: true,
    };
    const full = await postJson(u, "/v1/chat/completions", req);
    const events = objs(
      await sse(u, "/v1/chat/completions", {
        ...req,
        stream: true,
        stream_options: { include_usage: true },
      }),
    );
    const first = events[0]!;
    assert.equal(first.object, "chat.completion.chunk");
    assert.equal(first.id, events[1]!.id);
    assert.deepEqual(first.choices[0].delta, { role: "assistant", content: "" });
    assert.equal(first.choices[0].finish_reason, null);
    assert.deepEqual(first.prompt_token_ids, full.prompt_token_ids);
    const usageChunk = events.at(-1)!;
    assert.deepEqual(usageChunk.choices, []);
    assert.deepEqual(usageChunk.usage, full.usage);
    const body = events.slice(1, -1);
    assert.ok(body.every((e) => !("prompt_token_ids" in e)));
    const text = body.map((e) => e.choices[0].delta.content ?? "").join("");
    const ids = body.flatMap((e) => e.choices[0].token_ids);
    const lps = body.flatMap((e) => e.choices[0].logprobs.content);
    assert.equal(text, full.choices[0].message.content);
    assert.deepEqual(ids, full.choices[0].token_ids);
    assert.deepEqual(lps, full.choices[0].logprobs.content);
    assert.equal(body.at(-1)!.choices[0].finish_reason, "stop");
    assert.equal(body.at(-1)!.choices[0].stop_reason, null);
    assert.ok(body.slice(0, -1).every((e) => e.choices[0].finish_reason === null));
  });

  it("stream without token ids: token_ids null, no usage chunk", async () => {
    const events = objs(
      await sse(u, "/v1/chat/completions", { messages: [user("a")], stream: true }),
    );
    assert.equal(events[0]!.prompt_token_ids, null);
    assert.ok(events.slice(1).every((e) => e.choices[0].token_ids === null));
    assert.ok(events.every((e) => e.choices.length === 1));
  });

  it("n > 1: choices differ by index; streams interleave", async () => {
    const body = await postJson(u, "/v1/chat/completions", {
      messages: [user("q")],
      n: 3,
      return_token_ids: true,
    });
    assert.deepEqual(
      body.choices.map((c: J) => c.message.content),
      ["Echo: q", "Other 1: q", "Other 2: q"],
    );
    const total = body.choices.reduce((a: number, c: J) => a + c.token_ids.length, 0);
    assert.equal(body.usage.completion_tokens, total);
    const events = objs(
      await sse(u, "/v1/chat/completions", {
        messages: [user("q")],
        n: 3,
        stream: true,
        return_token_ids: true,
      }),
    );
    assert.deepEqual(
      events.slice(0, 3).map((e) => e.choices[0].index),
      [0, 1, 2],
    );
    assert.deepEqual(
      events.slice(3, 6).map((e) => e.choices[0].index),
      [0, 1, 2],
    );
    for (let i = 0; i < 3; i++) {
      const mine = events.slice(3).filter((e) => e.choices[0].index === i);
      assert.deepEqual(
        mine.flatMap((e) => e.choices[0].token_ids),
        body.choices[i].token_ids,
      );
      assert.equal(
        mine.map((e) => e.choices[0].delta.content).join(""),
        body.choices[i].message.content,
      );
    }
  });

  it("max_tokens: finish length, no EOS, text cut; max_completion_tokens wins", async () => {
    const body = await postJson(u, "/v1/chat/completions", {
      messages: [user("hello")],
      max_tokens: 4,
      return_token_ids: true,
    });
    const c = body.choices[0];
    assert.equal(c.finish_reason, "length");
    assert.deepEqual(c.token_ids, enc("Echo"));
    assert.equal(c.message.content, "Echo");
    const b2 = await postJson(u, "/v1/chat/completions", {
      messages: [user("hello")],
      max_tokens: 4,
      max_completion_tokens: 2,
    });
    assert.equal(b2.choices[0].message.content, "Ec");
    // Exactly enough room for the text but not the EOS: still "length".
    const b3 = await postJson(u, "/v1/chat/completions", {
      messages: [user("hi")],
      max_tokens: enc("Echo: hi").length,
      return_token_ids: true,
    });
    assert.equal(b3.choices[0].finish_reason, "length");
    assert.equal(b3.choices[0].message.content, "Echo: hi");
  });

  it("stop strings truncate the text, keep the ids through the stopping token", async () => {
    const body = await postJson(u, "/v1/chat/completions", {
      messages: [user("one two three")],
      stop: ["two", "zzz"],
      return_token_ids: true,
    });
    const c = body.choices[0];
    assert.equal(c.message.content, "Echo: one ");
    assert.equal(c.finish_reason, "stop");
    assert.equal(c.stop_reason, "two");
    assert.deepEqual(c.token_ids, enc("Echo: one two"));
    const inc = await postJson(u, "/v1/chat/completions", {
      messages: [user("one two three")],
      stop: "two",
      include_stop_str_in_output: true,
    });
    assert.equal(inc.choices[0].message.content, "Echo: one two");
    const ev = objs(
      await sse(u, "/v1/chat/completions", {
        messages: [user("one two three")],
        stop: ["two"],
        stream: true,
      }),
    );
    assert.equal(ev.map((e) => e.choices[0].delta.content ?? "").join(""), "Echo: one ");
    assert.equal(ev.at(-1)!.choices[0].stop_reason, "two");
  });

  it("stop_token_ids stop on that token (kept in ids, not text)", async () => {
    const o = enc("o")[0]!;
    const body = await postJson(u, "/v1/chat/completions", {
      messages: [user("x")],
      stop_token_ids: [o],
      return_token_ids: true,
    });
    assert.equal(body.choices[0].message.content, "Ech");
    assert.equal(body.choices[0].stop_reason, o);
    assert.deepEqual(body.choices[0].token_ids, enc("Echo"));
  });

  it("tool calls + reasoning: vLLM message shape", async () => {
    const tools = [{ type: "function", function: { name: "get_weather", parameters: {} } }];
    const body = await postJson(u, "/v1/chat/completions", {
      messages: [user("tool")],
      tools,
      return_token_ids: true,
    });
    const c = body.choices[0];
    assert.equal(c.finish_reason, "tool_calls");
    assert.equal(c.message.content, null);
    assert.equal(c.message.reasoning, "need weather");
    assert.equal(c.message.tool_calls.length, 2);
    const [a, b] = c.message.tool_calls;
    assert.match(a.id, /^chatcmpl-tool-[0-9a-f]{32}$/);
    assert.notEqual(a.id, b.id);
    // each request's calls have ids of their own (a client keys its history by them)
    const again = await postJson(u, "/v1/chat/completions", { messages: [user("tool")], tools });
    assert.notEqual(again.choices[0].message.tool_calls[0].id, a.id);
    assert.deepEqual(a.function, { name: "get_weather", arguments: '{"city":"Paris"}' });
    assert.deepEqual(b.function, { name: "get_time", arguments: '{"tz": "CET"}' });
    assert.equal(a.type, "function");
    // The ids cover the raw model output (think + tool-call markup) + EOS.
    const raw = byteTokenizer.decode(c.token_ids);
    assert.ok(raw.startsWith("<think>\nneed weather\n</think>\n\n<tool_call>\n"));
    assert.ok(raw.endsWith("</tool_call><|im_end|>"));
    // Rendering the assistant turn back reproduces the generated ids (prefix property).
    const turn = renderChatML([user("tool"), { role: "assistant", ...c.message }], false);
    const prompt = renderChatML([user("tool")]);
    assert.equal(turn, `${prompt}${raw}\n`);
  });

  it("tool calls stream: id/name first, then argument fragments", async () => {
    const tools = [{ type: "function", function: { name: "get_weather" } }];
    const events = objs(
      await sse(u, "/v1/chat/completions", { messages: [user("tool")], tools, stream: true }),
    );
    const deltas = events.map((e) => e.choices[0].delta);
    const reasoning = deltas.map((d) => d.reasoning ?? "").join("");
    assert.equal(reasoning, "need weather");
    const tc = deltas.flatMap((d) => d.tool_calls ?? []);
    const byIndex = new Map<number, J[]>();
    for (const t of tc) byIndex.set(t.index, [...(byIndex.get(t.index) ?? []), t]);
    assert.equal(byIndex.size, 2);
    for (const [i, parts] of byIndex) {
      const head = parts[0]!;
      assert.match(head.id, /^chatcmpl-tool-/);
      assert.equal(head.type, "function");
      assert.equal(head.function.name, i === 0 ? "get_weather" : "get_time");
      assert.ok(parts.length > 3, "arguments arrive in several fragments");
      assert.ok(parts.slice(1).every((p) => p.id === undefined && p.function.name === undefined));
      const args = parts.map((p) => p.function.arguments ?? "").join("");
      assert.equal(args, i === 0 ? '{"city":"Paris"}' : '{"tz": "CET"}');
    }
    assert.equal(events.at(-1)!.choices[0].finish_reason, "tool_calls");
  });

  it("without tools in the request, tool-call markup stays in content", async () => {
    const body = await postJson(u, "/v1/chat/completions", { messages: [user("tool")] });
    const c = body.choices[0];
    assert.equal(c.finish_reason, "stop");
    assert.equal(c.message.tool_calls, undefined);
    assert.match(c.message.content, /^<tool_call>\n\{"name": "get_weather"/);
  });

  it("reasoning in stream deltas, content after", async () => {
    const events = objs(
      await sse(u, "/v1/chat/completions", { messages: [user("think")], stream: true }),
    );
    const deltas = events.slice(1).map((e) => e.choices[0].delta);
    assert.equal(deltas.map((d) => d.reasoning ?? "").join(""), "Let me think.");
    assert.equal(deltas.map((d) => d.content ?? "").join(""), "The answer.");
    assert.ok(deltas.every((d) => !("reasoning_content" in d)));
  });

  it("validation errors use the nested vLLM error shape", async () => {
    const r = await post(u, "/v1/chat/completions", { messages: [] });
    assert.equal(r.status, 400);
    const e = (await r.json()) as J;
    assert.deepEqual(Object.keys(e), ["error"]);
    assert.equal(e.error.type, "BadRequestError");
    assert.equal(e.error.code, 400);
    assert.equal(typeof e.error.message, "string");
    const r2 = await post(u, "/v1/chat/completions", {
      messages: [user("a")],
      stream_options: { include_usage: true },
    });
    assert.equal(r2.status, 400);
    const r3 = await post(u, "/v1/chat/completions", "{not json");
    assert.equal(r3.status, 400);
    const r4 = await post(u, "/v1/chat/completions", { messages: [user("a")], max_tokens: 0 });
    assert.equal(r4.status, 400);
  });

  it("multi-turn: the next prompt extends previous prompt + completion ids", async () => {
    const m1 = [user("hi")];
    const t1 = await postJson(u, "/v1/chat/completions", { messages: m1, return_token_ids: true });
    const m2 = [...m1, t1.choices[0].message as ChatMessage, user("again")];
    const t2 = await postJson(u, "/v1/chat/completions", { messages: m2, return_token_ids: true });
    const prefix = [...t1.prompt_token_ids, ...t1.choices[0].token_ids];
    assert.deepEqual(t2.prompt_token_ids.slice(0, prefix.length), prefix);
  });
});

describe("vllm completions", () => {
  let u: FakeUpstream;
  before(async () => {
    u = await startFakeUpstream({
      kind: "vllm",
      respond: (r) => `<${r.promptText}|${r.choiceIndex}>`,
    });
  });
  after(() => u.close());

  it("string prompt: default max_tokens 16, logprobs shape", async () => {
    const body = await postJson(u, "/v1/completions", {
      prompt: "a fairly long prompt here",
      logprobs: 2,
      return_token_ids: true,
    });
    assert.match(body.id, /^cmpl-/);
    assert.equal(body.object, "text_completion");
    const c = body.choices[0];
    assert.equal(c.finish_reason, "length");
    assert.equal(c.token_ids.length, 16);
    assert.equal(c.text, "<a fairly long p");
    assert.deepEqual(c.prompt_token_ids, enc("a fairly long prompt here"));
    const lp = c.logprobs;
    assert.deepEqual(Object.keys(lp).sort(), [
      "text_offset",
      "token_logprobs",
      "tokens",
      "top_logprobs",
    ]);
    assert.equal(lp.tokens.join(""), c.text);
    assert.equal(lp.text_offset[0], 0);
    assert.equal(lp.text_offset[3], 3);
    assert.equal(lp.token_logprobs[5], fakeLogprob(c.token_ids[5], 5));
    assert.equal(Object.keys(lp.top_logprobs[0]).length, 2);
    assert.equal(lp.top_logprobs[0][lp.tokens[0]], lp.token_logprobs[0]);
  });

  it("token-id prompts, several prompts × n: index = prompt * n + j, per-choice prompt ids", async () => {
    const p0 = enc("ab");
    const p1 = enc("xyz");
    const body = await postJson(u, "/v1/completions", {
      prompt: [p0, p1],
      n: 2,
      max_tokens: 50,
      return_token_ids: true,
    });
    assert.deepEqual(
      body.choices.map((c: J) => [c.index, c.text, c.prompt_token_ids]),
      [
        [0, "<ab|0>", p0],
        [1, "<ab|1>", p0],
        [2, "<xyz|0>", p1],
        [3, "<xyz|1>", p1],
      ],
    );
    assert.equal(body.choices[0].finish_reason, "stop");
    assert.equal(body.choices[0].token_ids.at(-1), IM_END_TOKEN_ID);
    assert.equal(body.usage.prompt_tokens, p0.length + p1.length);
    const single = await postJson(u, "/v1/completions", { prompt: p1, max_tokens: 50 });
    assert.equal(single.choices[0].text, "<xyz|0>");
    assert.equal(single.choices[0].token_ids, null);
  });

  it("streaming: prompt ids on each choice's first chunk only; matches non-streaming", async () => {
    const req = { prompt: ["ab", "cd"], max_tokens: 50, return_token_ids: true, logprobs: 0 };
    const full = await postJson(u, "/v1/completions", req);
    const events = objs(
      await sse(u, "/v1/completions", {
        ...req,
        stream: true,
        stream_options: { include_usage: true },
      }),
    );
    const usage = events.at(-1)!;
    assert.deepEqual(usage.choices, []);
    assert.deepEqual(usage.usage, full.usage);
    for (const fc of full.choices as J[]) {
      const mine = events.slice(0, -1).filter((e) => e.choices[0].index === fc.index);
      assert.deepEqual(mine[0]!.choices[0].prompt_token_ids, fc.prompt_token_ids);
      assert.ok(mine.slice(1).every((e) => e.choices[0].prompt_token_ids === null));
      assert.equal(mine.map((e) => e.choices[0].text).join(""), fc.text);
      assert.deepEqual(
        mine.flatMap((e) => e.choices[0].token_ids),
        fc.token_ids,
      );
      assert.deepEqual(
        mine.flatMap((e) => e.choices[0].logprobs.text_offset),
        fc.logprobs.text_offset,
      );
      assert.equal(mine.at(-1)!.choices[0].finish_reason, "stop");
      for (const e of mine) {
        const ch = e.choices[0];
        assert.deepEqual(Object.keys(ch).sort(), [
          "finish_reason",
          "index",
          "logprobs",
          "prompt_token_ids",
          "stop_reason",
          "text",
          "token_ids",
        ]);
      }
    }
  });

  it("rejects an empty prompt", async () => {
    const r = await post(u, "/v1/completions", { prompt: "" });
    assert.equal(r.status, 400);
    assert.equal(((await r.json()) as J).error.param, "prompt");
  });
});

describe("sglang /generate", () => {
  let u: FakeUpstream;
  before(async () => {
    u = await startFakeUpstream({
      kind: "sglang",
      respond: (r) => `out(${r.promptText})#${r.choiceIndex}`,
    });
  });
  after(() => u.close());

  it("single text prompt: {text, output_ids, meta_info}", async () => {
    const body = await postJson(u, "/generate", {
      text: "hey",
      sampling_params: { temperature: 0, max_new_tokens: 100 },
      rid: "req-1",
    });
    assert.equal(body.text, "out(hey)#0");
    assert.deepEqual(body.output_ids, [...enc("out(hey)#0"), IM_END_TOKEN_ID]);
    const m = body.meta_info;
    assert.equal(m.id, "req-1");
    assert.deepEqual(m.finish_reason, { type: "stop", matched: IM_END_TOKEN_ID });
    assert.equal(m.prompt_tokens, 3);
    assert.equal(m.completion_tokens, body.output_ids.length);
    assert.equal(m.cached_tokens, 0);
    assert.equal(typeof m.e2e_latency, "number");
    assert.equal(m.output_token_logprobs, undefined);
  });

  it("input_ids, return_logprob, length finish, stop strings", async () => {
    const ids = enc("abc");
    const body = await postJson(u, "/generate", {
      input_ids: ids,
      sampling_params: { max_new_tokens: 5 },
      return_logprob: true,
      top_logprobs_num: 2,
    });
    assert.equal(body.text, "out(a");
    assert.deepEqual(body.meta_info.finish_reason, { type: "length", length: 5 });
    const olp = body.meta_info.output_token_logprobs as unknown[][];
    assert.equal(olp.length, 5);
    olp.forEach((t, i) => {
      assert.deepEqual(t, [fakeLogprob(body.output_ids[i], i), body.output_ids[i], null]);
    });
    assert.deepEqual(body.meta_info.input_token_logprobs, [[null, ids.at(-1), null]]);
    assert.equal(body.meta_info.output_top_logprobs[0].length, 2);
    const stop = await postJson(u, "/generate", {
      text: "hey",
      sampling_params: { stop: [")"] },
    });
    assert.equal(stop.text, "out(hey");
    assert.deepEqual(stop.meta_info.finish_reason, { type: "stop", matched: ")" });
    const withText = await postJson(u, "/generate", {
      text: "hey",
      sampling_params: { max_new_tokens: 2 },
      return_logprob: true,
      return_text_in_logprobs: true,
      logprob_start_len: 0,
    });
    assert.deepEqual(
      withText.meta_info.output_token_logprobs.map((t: unknown[]) => t[2]),
      ["o", "u"],
    );
    assert.equal(withText.meta_info.input_token_logprobs.length, 3);
    assert.equal(withText.meta_info.input_token_logprobs[0][0], null);
  });

  it("batch and n > 1 return lists (prompt-major)", async () => {
    const batch = await postJson(u, "/generate", { text: ["a", "b"], sampling_params: { n: 2 } });
    assert.ok(Array.isArray(batch));
    assert.deepEqual(
      (batch as unknown as J[]).map((o) => o.text),
      ["out(a)#0", "out(a)#1", "out(b)#0", "out(b)#1"],
    );
    const ids = await postJson(u, "/generate", { input_ids: [enc("a"), enc("b")] });
    assert.deepEqual(
      (ids as unknown as J[]).map((o) => o.text),
      ["out(a)#0", "out(b)#0"],
    );
  });

  it("streaming is cumulative and ends with [DONE]", async () => {
    const full = await postJson(u, "/generate", { text: "hey", return_logprob: true });
    const events = objs(
      await sse(u, "/generate", { text: "hey", return_logprob: true, stream: true }),
    );
    assert.equal(events.length, full.output_ids.length);
    events.forEach((e, i) => {
      assert.deepEqual(e.output_ids, full.output_ids.slice(0, i + 1));
      assert.equal(e.meta_info.completion_tokens, i + 1);
      assert.equal(e.meta_info.output_token_logprobs.length, i + 1);
      assert.equal(e.index, undefined);
      assert.ok(full.text.startsWith(e.text));
    });
    const last = events.at(-1)!;
    assert.equal(last.text, full.text);
    assert.deepEqual(last.meta_info.finish_reason, full.meta_info.finish_reason);
    assert.ok(events.slice(0, -1).every((e) => e.meta_info.finish_reason === null));
  });

  it("batch streaming carries index and interleaves", async () => {
    const events = objs(await sse(u, "/generate", { text: ["a", "bb"], stream: true }));
    assert.deepEqual(
      events.slice(0, 4).map((e) => e.index),
      [0, 1, 0, 1],
    );
    const finals = events.filter((e) => e.meta_info.finish_reason !== null);
    assert.deepEqual(finals.map((e) => e.text).sort(), ["out(a)#0", "out(bb)#0"]);
  });

  it("errors: {error: {message}}", async () => {
    const r = await post(u, "/generate", { sampling_params: {} });
    assert.equal(r.status, 400);
    const e = (await r.json()) as J;
    assert.deepEqual(Object.keys(e), ["error"]);
    assert.equal(typeof e.error.message, "string");
  });

  it("native endpoints: /health, /get_model_info, /v1/models", async () => {
    assert.equal((await fetch(`${u.url}/health`)).status, 200);
    const info = (await (await fetch(`${u.url}/get_model_info`)).json()) as J;
    assert.equal(info.model_path, "fake-model");
    assert.equal(info.is_generation, true);
    const models = (await (await fetch(`${u.url}/v1/models`)).json()) as J;
    assert.equal(models.data[0].id, "fake-model");
  });

  it("openai endpoints use reasoning_content and no token ids", async () => {
    const s = await startFakeUpstream({
      kind: "sglang",
      respond: () => ({ text: "x", reasoning: "r" }),
    });
    try {
      const body = await postJson(s, "/v1/chat/completions", {
        messages: [user("a")],
        return_token_ids: true,
      });
      assert.equal(body.choices[0].message.reasoning_content, "r");
      assert.equal(body.choices[0].token_ids, undefined);
      assert.equal(body.prompt_token_ids, undefined);
    } finally {
      await s.close();
    }
  });
});

describe("sglang incremental streaming", () => {
  it("streams deltas when sglangIncrementalStreaming is set", async () => {
    await withUpstream({ kind: "sglang", sglangIncrementalStreaming: true }, async (u) => {
      const full = await postJson(u, "/generate", { text: "hi" });
      const events = objs(await sse(u, "/generate", { text: "hi", stream: true }));
      assert.deepEqual(
        events.flatMap((e) => e.output_ids),
        full.output_ids,
      );
      assert.equal(events.map((e) => e.text).join(""), full.text);
    });
  });
});

describe("openai kind", () => {
  it("hosted shapes: no token ids, usage details, refusal", async () => {
    await withUpstream({ kind: "openai" }, async (u) => {
      const body = await postJson(u, "/v1/chat/completions", {
        messages: [user("yo")],
        return_token_ids: true,
        logprobs: true,
      });
      const c = body.choices[0];
      assert.equal(body.prompt_token_ids, undefined);
      assert.equal(c.token_ids, undefined);
      assert.deepEqual(c.message, {
        role: "assistant",
        content: "Echo: yo",
        refusal: null,
        annotations: [],
      });
      assert.equal(c.finish_reason, "stop");
      assert.equal(c.logprobs.content.length, enc("Echo: yo").length, "no EOS entry");
      assert.equal(c.logprobs.refusal, null);
      assert.equal(body.usage.completion_tokens_details.reasoning_tokens, 0);
      assert.equal(typeof body.system_fingerprint, "string");
      const events = objs(
        await sse(u, "/v1/chat/completions", {
          messages: [user("yo")],
          stream: true,
          stream_options: { include_usage: true },
        }),
      );
      assert.ok(events.slice(0, -1).every((e) => e.usage === null));
      assert.equal(events.at(-1)!.usage.total_tokens, body.usage.total_tokens);
    });
  });

  it("rejectUnknownParams rejects return_token_ids with the OpenAI error shape", async () => {
    await withUpstream({ kind: "openai", rejectUnknownParams: true }, async (u) => {
      const r = await post(u, "/v1/chat/completions", {
        messages: [user("yo")],
        return_token_ids: true,
      });
      assert.equal(r.status, 400);
      const e = (await r.json()) as J;
      assert.equal(e.error.type, "invalid_request_error");
      assert.equal(e.error.param, "return_token_ids");
    });
  });
});

describe("options", () => {
  it("reasoningField both; legacy errors; checkModel", async () => {
    await withUpstream(
      {
        kind: "vllm",
        reasoningField: "both",
        errorFormat: "legacy",
        checkModel: true,
        respond: () => ({ text: "t", reasoning: "r" }),
      },
      async (u) => {
        const body = await postJson(u, "/v1/chat/completions", { messages: [user("a")] });
        assert.equal(body.choices[0].message.reasoning, "r");
        assert.equal(body.choices[0].message.reasoning_content, "r");
        const r = await post(u, "/v1/chat/completions", { model: "other", messages: [user("a")] });
        assert.equal(r.status, 404);
        const e = (await r.json()) as J;
        assert.equal(e.object, "error");
        assert.equal(e.type, "NotFoundError");
        assert.equal(e.code, 404);
      },
    );
  });

  it("a custom tokenizer drives ids; eosTokenId appended", async () => {
    const vocab = new Map<string, number>();
    const words: string[] = [];
    const tokenizer = {
      encode: (s: string) =>
        (s.match(/\S+|\s+/g) ?? []).map((w) => {
          if (!vocab.has(w)) {
            vocab.set(w, words.length + 10);
            words.push(w);
          }
          return vocab.get(w)!;
        }),
      decode: (ids: number[]) => ids.map((i) => words[i - 10] ?? "").join(""),
    };
    await withUpstream({ kind: "vllm", tokenizer, eosTokenId: 7 }, async (u) => {
      const body = await postJson(u, "/v1/chat/completions", {
        messages: [user("a b")],
        return_token_ids: true,
        stream: false,
      });
      const ids = body.choices[0].token_ids as number[];
      assert.equal(ids.at(-1), 7);
      assert.equal(tokenizer.decode(ids.slice(0, -1)), "Echo: a b");
      const ev = objs(
        await sse(u, "/v1/chat/completions", {
          messages: [user("a b")],
          return_token_ids: true,
          stream: true,
          max_tokens: 3,
        }),
      );
      assert.equal(ev.map((e) => e.choices[0].delta.content ?? "").join(""), "Echo: a");
      assert.equal(ev.at(-1)!.choices[0].finish_reason, "length");
    });
  });

  it("latencyMs and tokenDelayMs delay responses", async () => {
    await withUpstream({ kind: "vllm", latencyMs: 60, tokenDelayMs: 5 }, async (u) => {
      const t0 = performance.now();
      await postJson(u, "/v1/chat/completions", { messages: [user("a")] });
      assert.ok(performance.now() - t0 >= 55);
      u.config.latencyMs = 0;
      const t1 = performance.now();
      await sse(u, "/v1/chat/completions", { messages: [user("abcdefgh")], stream: true });
      assert.ok(performance.now() - t1 >= 5 * 10);
    });
  });

  it("records requests with a cap, or not at all", async () => {
    await withUpstream({ kind: "vllm", maxRecorded: 3 }, async (u) => {
      for (let i = 0; i < 5; i++)
        await postJson(u, "/v1/chat/completions", { messages: [user(`m${i}`)] });
      assert.equal(u.requests.length, 3);
      assert.equal(u.requests[0]!.path, "/v1/chat/completions");
      assert.deepEqual((u.requests.at(-1)!.body as J).messages, [user("m4")]);
      assert.equal(u.totalRequests, 5);
      u.clearRequests();
      assert.equal(u.requests.length, 0);
    });
    await withUpstream({ kind: "vllm", record: false }, async (u) => {
      await postJson(u, "/v1/chat/completions", { messages: [user("m")] });
      assert.equal(u.requests.length, 0);
    });
  });

  it("health toggles; /v1/models; unknown paths 404", async () => {
    await withUpstream({ kind: "vllm", model: "my-model" }, async (u) => {
      const h = await fetch(`${u.url}/health`);
      assert.equal(h.status, 200);
      assert.equal(await h.text(), "");
      u.setHealthy(false);
      assert.equal((await fetch(`${u.url}/health`)).status, 503);
      u.setHealthy(true);
      const models = (await (await fetch(`${u.url}/v1/models`)).json()) as J;
      assert.equal(models.object, "list");
      assert.equal(models.data[0].id, "my-model");
      assert.equal(models.data[0].owned_by, "vllm");
      assert.equal(typeof models.data[0].max_model_len, "number");
      assert.equal((await fetch(`${u.url}/nope`)).status, 404);
      assert.equal((await post(u, "/generate", {})).status, 404);
      const tok = (await (await post(u, "/tokenize", { prompt: "hi" })).json()) as J;
      assert.deepEqual(tok.tokens, enc("hi"));
    });
  });
});

describe("faults", () => {
  let u: FakeUpstream;
  before(async () => {
    u = await startFakeUpstream({ kind: "vllm" });
  });
  after(() => u.close());
  const chat = (init?: RequestInit, extra: J = {}) =>
    post(u, "/v1/chat/completions", { messages: [user("hello")], ...extra }, init);

  it("status: the given status with an engine-shaped body (or the given body/headers)", async () => {
    u.faults.push({ kind: "status", status: 500 });
    u.faults.push({
      kind: "status",
      status: 429,
      body: { custom: true },
      headers: { "retry-after": "1" },
    });
    const r = await chat();
    assert.equal(r.status, 500);
    const e = (await r.json()) as J;
    assert.equal(e.error.code, 500);
    const r2 = await chat();
    assert.equal(r2.status, 429);
    assert.equal(r2.headers.get("retry-after"), "1");
    assert.deepEqual(await r2.json(), { custom: true });
    assert.equal((await chat()).status, 200, "faults are consumed");
  });

  it("faults are not consumed by health checks; path-targeted faults wait for their path", async () => {
    u.faults.push({ kind: "status", status: 503, path: "/v1/completions" });
    assert.equal((await fetch(`${u.url}/health`)).status, 200);
    assert.equal((await chat()).status, 200);
    assert.equal(u.faults.length, 1);
    assert.equal((await post(u, "/v1/completions", { prompt: "x" })).status, 503);
    assert.equal(u.faults.length, 0);
  });

  it("garbage: 200 with a non-JSON body", async () => {
    u.faults.push({ kind: "garbage" });
    const r = await chat();
    assert.equal(r.status, 200);
    const text = await r.text();
    assert.throws(() => JSON.parse(text));
  });

  it("destroy: the socket closes before any response", async () => {
    u.faults.push({ kind: "destroy" });
    await assert.rejects(chat());
    assert.equal((await chat()).status, 200);
  });

  it("destroy-mid-stream: some SSE chunks, then the connection drops", async () => {
    u.faults.push({ kind: "destroy-mid-stream", afterChunks: 3 });
    const r = await chat(undefined, { stream: true });
    assert.equal(r.status, 200);
    const reader = r.body!.getReader();
    let got = "";
    const dec = new TextDecoder();
    await assert.rejects(async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        got += dec.decode(value);
      }
    });
    assert.equal(got.split("\n\n").filter((x) => x.startsWith("data: ")).length, 3);
    assert.ok(!got.includes("[DONE]"));
  });

  it("destroy-mid-stream on a non-streaming request: half a body, then a drop", async () => {
    u.faults.push({ kind: "destroy-mid-stream", afterChunks: 1 });
    const r = await chat();
    assert.equal(r.status, 200);
    await assert.rejects(r.text());
  });

  it("hang: never answers (counted in flight); close() still resolves", async () => {
    const h = await startFakeUpstream({ kind: "vllm" });
    h.faults.push({ kind: "hang" });
    const pending = post(
      h,
      "/v1/chat/completions",
      { messages: [user("x")] },
      {
        signal: AbortSignal.timeout(150),
      },
    );
    await assert.rejects(pending);
    h.faults.push({ kind: "hang" });
    const stuck = post(h, "/v1/chat/completions", { messages: [user("x")] }).catch((e) => e);
    // (until it arrives: a loaded machine may take longer than any fixed wait)
    for (const until = Date.now() + 10_000; h.inFlight === 0 && Date.now() < until; )
      await new Promise((r) => setTimeout(r, 10));
    assert.equal(h.inFlight, 1);
    await h.close();
    assert.ok((await stuck) instanceof Error);
  });

  it("delay: answers after the given time", async () => {
    u.faults.push({ kind: "delay", ms: 80 });
    const t0 = performance.now();
    assert.equal((await chat()).status, 200);
    assert.ok(performance.now() - t0 >= 75);
  });

  it("inFlight drops back to zero", async () => {
    await Promise.all([chat(), chat(), chat()]);
    await new Promise((r) => setTimeout(r, 10));
    assert.equal(u.inFlight, 0);
  });
});

describe("replay (benchmarks)", () => {
  const body = { messages: [user("same question")], max_tokens: 8, logprobs: true };
  it("a repeated request gets the first answer's bytes; another body is generated anew", async () => {
    await withUpstream({ kind: "vllm", replay: true, record: false }, async (u) => {
      const first = await (await post(u, "/v1/chat/completions", body)).text();
      const again = await post(u, "/v1/chat/completions", body);
      assert.equal(again.status, 200);
      assert.equal(again.headers.get("content-type"), "application/json");
      assert.equal(await again.text(), first);
      const other = (await postJson(u, "/v1/chat/completions", {
        ...body,
        messages: [user("another")],
      })) as J;
      assert.notEqual(other.id, (JSON.parse(first) as J).id);
      assert.match(other.choices[0].message.content, /^Echo: an/);
      // streams replay as the same events
      const s1 = await sse(u, "/v1/chat/completions", { ...body, stream: true });
      const s2 = await sse(u, "/v1/chat/completions", { ...body, stream: true });
      assert.deepEqual(s2, s1);
      assert.ok(objs(s2).length > 2);
      // a queued fault is not hidden by the replay; an error is not replayed
      u.faults.push({ kind: "status", status: 500 });
      assert.equal((await post(u, "/v1/chat/completions", body)).status, 500);
      assert.equal(await (await post(u, "/v1/chat/completions", body)).text(), first);
      const bad = { messages: "not a list" };
      assert.equal((await post(u, "/v1/chat/completions", bad)).status, 400);
      u.faults.push({ kind: "status", status: 503 });
      assert.equal((await post(u, "/v1/chat/completions", bad)).status, 503);
    });
  });

  it("the front answers hits itself; health passes through; chunked request bodies are refused", async () => {
    await withUpstream({ kind: "vllm", replay: true, record: false }, async (u) => {
      await post(u, "/v1/chat/completions", body);
      const before = u.totalRequests;
      for (let i = 0; i < 5; i++)
        assert.equal((await post(u, "/v1/chat/completions", body)).status, 200);
      assert.equal(u.totalRequests - before, 5, "hits are counted");
      u.setHealthy(false);
      assert.equal((await fetch(`${u.url}/health`)).status, 503);
      u.setHealthy(true);
      assert.equal((await fetch(`${u.url}/health`)).status, 200);
      const raw = await new Promise<string>((resolve, reject) => {
        const sock = net.connect(u.port, "127.0.0.1", () => {
          sock.write(
            "POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
          );
        });
        let out = "";
        sock.on("data", (d) => {
          out += d.toString();
        });
        sock.on("end", () => resolve(out));
        sock.on("error", reject);
      });
      assert.match(raw, /^HTTP\/1\.1 400 /);
      assert.match(raw, /Content-Length request bodies only/);
    });
  });

  it("off by default: each request is generated (fresh ids)", async () => {
    await withUpstream({ kind: "vllm", record: false }, async (u) => {
      const a = await postJson(u, "/v1/chat/completions", body);
      const b = await postJson(u, "/v1/chat/completions", body);
      assert.notEqual(a.id, b.id);
    });
  });
});
