/**
 * Token-in/token-out through vLLM's /v1/completions, with Qwen3's real tokenizer and template and
 * the fake vLLM server: the ids sent upstream, multi-turn extension over sampled ids, parsing,
 * streaming vs non-streaming, and upstream failures.
 */

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type ChatRenderer, PrefixMismatchError } from "../../hf/index.js";
import {
  type FakeCompletion,
  type FakeRequestInfo,
  type FakeUpstream,
  fakeLogprob,
  startFakeUpstream,
} from "../../testing/fake-upstream.js";
import {
  chatCall,
  directPool,
  IM_END,
  qwen3Upstream,
  qwen3 as r,
  remember,
  stable,
  streamChat,
} from "../../testing/tito.js";
import type { ChatCompletionRequest, ChatMessage, Tool } from "../../types/index.js";
import { ChatStreamAccumulator } from "../accumulate.js";
import { HttpError } from "../errors.js";
import type { UpstreamPool } from "./pool.js";
import { buildPromptIds, sameJson } from "./tito.js";
import { titoAdapters } from "./tito-adapters.js";
import type { ChatCall } from "./types.js";
import { type Upstream, UpstreamConnectError } from "./upstream.js";
import { VllmTitoAdapter } from "./vllm-tito.js";

const TOOLS: Tool[] = [
  {
    type: "function",
    function: {
      name: "get_weather",
      description: "Weather of a city",
      parameters: { type: "object", properties: { city: { type: "string" } } },
    },
  },
];

/** The fake model: a tool call for a weather question, an answer after a tool result. */
function defaultRespond(info: FakeRequestInfo): string | FakeCompletion {
  const p = info.promptText;
  if (p.trimEnd().endsWith("</tool_response><|im_end|>\n<|im_start|>assistant")) {
    return { reasoning: "The tool answered.", text: "Sunny in Paris 🎉, 你好 señor." };
  }
  if (p.includes("weather")) {
    return {
      reasoning: `Need the weather (${info.choiceIndex}).`,
      text: "",
      toolCalls: [
        { name: "get_weather", arguments: { city: info.choiceIndex ? "Rome" : "Paris" } },
      ],
    };
  }
  return { reasoning: "Simple.", text: `Hello ${info.choiceIndex}!` };
}

let respond: (info: FakeRequestInfo) => string | FakeCompletion = defaultRespond;
let fake: FakeUpstream;
let pool: UpstreamPool;
let u: Upstream;
const adapter = new VllmTitoAdapter(r);

before(async () => {
  fake = await startFakeUpstream(qwen3Upstream("vllm", (info) => respond(info)));
  pool = directPool([fake]);
  u = pool.list()[0]!;
});

after(async () => {
  await pool.close();
  await fake.close();
});

// biome-ignore lint/suspicious/noExplicitAny: loose access to recorded request bodies
type J = Record<string, any>;
function lastBody(): J {
  return fake.requests.at(-1)!.body as J;
}

const streamed = (call: ChatCall) => streamChat(adapter, u, call);

const weatherMessages = (): ChatMessage[] => [
  { role: "system", content: "You are a helpful assistant." },
  { role: "user", content: "What is the weather in Paris?" },
];

test("first call: ids sent are the full render; tool call and reasoning parsed", async () => {
  respond = defaultRespond;
  const call = chatCall({ messages: weatherMessages(), tools: TOOLS });
  const out = await adapter.chat(u, call);
  const body = lastBody();
  assert.equal(fake.requests.at(-1)!.path, "/v1/completions");
  const expected = r.renderPrompt(weatherMessages(), { tools: TOOLS });
  assert.deepEqual(body.prompt, expected.ids);
  assert.equal(body.return_token_ids, true);
  assert.equal(body.logprobs, 1);
  assert.deepEqual(body.stop_token_ids, [IM_END]);
  assert.equal(body.skip_special_tokens, false);
  assert.equal(body.include_stop_str_in_output, false);
  assert.equal(body.max_tokens, 2000);
  assert.equal(body.model, "fake-model");
  assert.equal(body.stream, undefined);

  assert.equal(out.promptNote, "rendered: first call");
  assert.equal(out.tokenSource, "renderer");
  assert.deepEqual(out.promptIds, expected.ids);
  assert.deepEqual(out.completion.prompt_token_ids, expected.ids);
  const raw =
    '<think>\nNeed the weather (0).\n</think>\n\n<tool_call>\n{"name": "get_weather", "arguments": {"city":"Paris"}}\n</tool_call>';
  const ids = [...r.encode(raw), IM_END];
  assert.deepEqual(out.choices[0]!.completionIds, ids);
  assert.deepEqual(
    out.choices[0]!.logprobs,
    ids.map((id, i) => fakeLogprob(id, i, 0)),
  );
  const ch = out.completion.choices[0]!;
  assert.deepEqual(ch.token_ids, ids);
  assert.equal(ch.finish_reason, "tool_calls");
  assert.equal(ch.message.role, "assistant");
  assert.equal(ch.message.content, null);
  assert.equal(ch.message.reasoning_content, "Need the weather (0).");
  assert.equal(ch.message.tool_calls?.length, 1);
  assert.equal(ch.message.tool_calls![0]!.function.name, "get_weather");
  assert.deepEqual(JSON.parse(ch.message.tool_calls![0]!.function.arguments), { city: "Paris" });
  assert.equal(ch.logprobs!.content!.length, ids.length);
  assert.deepEqual(ch.logprobs!.content![0], {
    token: r.tokenText(ids[0]!),
    logprob: fakeLogprob(ids[0]!, 0, 0),
    bytes: r.tokenBytes(ids[0]!),
    top_logprobs: [],
  });
  assert.deepEqual(out.completion.usage, {
    prompt_tokens: expected.ids.length,
    completion_tokens: ids.length,
    total_tokens: expected.ids.length + ids.length,
  });
});

test("second call extends the previous prompt + sampled ids (token-in/token-out)", async () => {
  respond = defaultRespond;
  const call1 = chatCall({ messages: weatherMessages(), tools: TOOLS });
  const out1 = await adapter.chat(u, call1);
  const prev = remember(call1, out1);
  const reply = out1.completion.choices[0]!.message;
  // The agent echoes the reply reformatted: reasoning dropped, arguments re-serialised.
  const tc = reply.tool_calls![0]!;
  const messages: ChatMessage[] = [
    ...weatherMessages(),
    {
      role: "assistant",
      content: "",
      tool_calls: [
        {
          ...tc,
          function: { name: tc.function.name, arguments: JSON.stringify({ city: "Paris" }) },
        },
      ],
    },
    { role: "tool", tool_call_id: tc.id, content: '{"temp": 21}' },
  ];
  const call2 = chatCall({ messages, tools: TOOLS }, { previous: prev });
  const out2 = await adapter.chat(u, call2);
  assert.equal(out2.promptNote, "extended previous prompt");
  const sent = lastBody().prompt as number[];
  const head = [...prev.promptIds, ...prev.choices[0]!.completionIds];
  assert.deepEqual(sent.slice(0, head.length), head);
  const full = r.renderText(messages, { tools: TOOLS });
  const appended = full.slice(full.indexOf("<|im_end|>", full.lastIndexOf("</tool_call>")) + 10);
  assert.ok(appended.startsWith("\n<|im_start|>user\n<tool_response>"), appended);
  assert.deepEqual(sent.slice(head.length), r.encode(appended));
  assert.deepEqual(out2.promptIds, sent);
  const ch = out2.completion.choices[0]!;
  assert.equal(ch.message.content, "Sunny in Paris 🎉, 你好 señor.");
  assert.equal(ch.message.reasoning_content, "The tool answered.");
  assert.equal(ch.finish_reason, "stop");
  assert.equal(ch.message.tool_calls, undefined);

  // A third turn keeps extending: the second prompt is its base.
  const prev2 = remember(call2, out2);
  const messages3: ChatMessage[] = [
    ...messages,
    { role: "assistant", content: ch.message.content },
    { role: "user", content: "Thanks" },
  ];
  const out3 = await adapter.chat(
    u,
    chatCall({ messages: messages3, tools: TOOLS }, { previous: prev2 }),
  );
  assert.equal(out3.promptNote, "extended previous prompt");
  const sent3 = lastBody().prompt as number[];
  assert.deepEqual(sent3.slice(0, sent.length), sent);
});

test("edited history, changed tools, a foreign reply: full render with a note saying why", async () => {
  respond = defaultRespond;
  const call1 = chatCall({ messages: weatherMessages(), tools: TOOLS });
  const out1 = await adapter.chat(u, call1);
  const prev = remember(call1, out1);
  const reply = out1.completion.choices[0]!.message;
  const tool: ChatMessage = { role: "tool", tool_call_id: "x", content: "21C" };

  const edited: ChatMessage[] = [
    weatherMessages()[0]!,
    { role: "user", content: "What is the weather in Lyon?" },
    reply,
    tool,
  ];
  const o1 = await adapter.chat(
    u,
    chatCall({ messages: edited, tools: TOOLS }, { previous: prev }),
  );
  assert.equal(o1.promptNote, "rendered: history differs from the previous call at message 1");
  assert.deepEqual(lastBody().prompt, r.renderPrompt(edited, { tools: TOOLS }).ids);

  const foreign: ChatMessage[] = [
    ...weatherMessages(),
    { role: "assistant", content: "I made this up." },
    { role: "user", content: "ok" },
  ];
  const o2 = await adapter.chat(
    u,
    chatCall({ messages: foreign, tools: TOOLS }, { previous: prev }),
  );
  assert.match(o2.promptNote!, /^rendered: history differs from the previous call at message 2/);

  const same = [...weatherMessages(), reply, tool];
  const o3 = await adapter.chat(u, chatCall({ messages: same }, { previous: prev }));
  assert.equal(
    o3.promptNote,
    "rendered: tools or chat_template_kwargs differ from the previous call",
  );
  assert.deepEqual(lastBody().prompt, r.renderPrompt(same).ids);

  const o4 = await adapter.chat(
    u,
    chatCall({ messages: [...weatherMessages(), reply], tools: TOOLS }, { previous: prev }),
  );
  assert.equal(o4.promptNote, "rendered: no new message after the previous call's reply");
});

test("a prefix mismatch from the renderer falls back to a full render", async () => {
  respond = defaultRespond;
  const strict: ChatRenderer = Object.create(r, {
    extendPrompt: {
      value: () => {
        throw new PrefixMismatchError("the template moved the system prompt", 12);
      },
    },
  });
  const a = new VllmTitoAdapter(strict);
  const call1 = chatCall({ messages: weatherMessages(), tools: TOOLS });
  const out1 = await a.chat(u, call1);
  const messages = [
    ...weatherMessages(),
    out1.completion.choices[0]!.message,
    { role: "tool" as const, tool_call_id: "c", content: "21" },
  ];
  const out2 = await a.chat(
    u,
    chatCall({ messages, tools: TOOLS }, { previous: remember(call1, out1) }),
  );
  assert.equal(out2.promptNote, "rendered: prefix mismatch (the template moved the system prompt)");
  assert.deepEqual(lastBody().prompt, r.renderPrompt(messages, { tools: TOOLS }).ids);
});

test("buildPromptIds: chat_template_kwargs reach the template", () => {
  const p = buildPromptIds(
    r,
    chatCall({
      messages: [{ role: "user", content: "hi" }],
      chat_template_kwargs: { enable_thinking: false },
    }),
  );
  assert.equal(
    p.text,
    "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n",
  );
  assert.equal(p.opensReasoning, false);
  assert.throws(
    () =>
      buildPromptIds(
        r,
        chatCall({ messages: [{ role: "user", content: "hi" }], chat_template_kwargs: 3 }),
      ),
    (e: unknown) => e instanceof HttpError && e.status === 400,
  );
});

test("sameJson ignores key order and undefined fields only", () => {
  assert.ok(sameJson({ a: 1, b: [1, { c: 2 }], d: undefined }, { b: [1, { c: 2 }], a: 1 }));
  assert.ok(!sameJson({ a: 1 }, { a: 1, b: null }));
  assert.ok(!sameJson([1, 2], [2, 1]));
});

test("streaming gives the same outcome as non-streaming, with clean incremental text", async () => {
  respond = defaultRespond;
  fake.config.tokensPerChunk = 1;
  try {
    const call1 = chatCall({ messages: weatherMessages(), tools: TOOLS });
    const out1 = await adapter.chat(u, call1);
    const messages = [
      ...weatherMessages(),
      out1.completion.choices[0]!.message,
      { role: "tool" as const, tool_call_id: "c", content: "21" },
    ];
    for (const msgs of [weatherMessages(), messages]) {
      const prev = msgs === messages ? remember(call1, out1) : undefined;
      const call = chatCall({ messages: msgs, tools: TOOLS }, { previous: prev });
      const plain = await adapter.chat(u, call);
      const { outcome, chunks } = await streamed(call);
      assert.equal(lastBody().stream, true);
      assert.deepEqual(lastBody().stream_options, { include_usage: true });
      assert.deepEqual(stable(outcome), stable(plain));

      // The chunks fold (as an agent's client would) into the same message.
      assert.deepEqual(chunks[0]!.choices[0]!.delta, { role: "assistant", content: "" });
      assert.deepEqual(chunks[0]!.prompt_token_ids, plain.promptIds);
      const last = chunks.at(-1)!;
      assert.deepEqual(last.choices, []);
      assert.deepEqual(last.usage, plain.completion.usage);
      const acc = new ChatStreamAccumulator();
      for (const c of chunks) acc.push(c);
      const folded = acc.result();
      const want = outcome.completion.choices[0]!;
      const got = folded.choices[0]!;
      assert.equal(got.message.content ?? "", want.message.content ?? "");
      assert.equal(got.message.reasoning_content, want.message.reasoning_content);
      assert.deepEqual(got.message.tool_calls, want.message.tool_calls);
      assert.equal(got.finish_reason, want.finish_reason);
      assert.deepEqual(got.token_ids, want.token_ids);
      assert.deepEqual(got.logprobs, want.logprobs);
      for (const c of chunks) {
        for (const ch of c.choices) {
          assert.ok(!String(ch.delta.content ?? "").includes("\uFFFD"), JSON.stringify(ch.delta));
        }
      }
    }
  } finally {
    fake.config.tokensPerChunk = 1;
  }
});

test("n=2: both choices parsed; the next call extends whichever reply the agent kept", async () => {
  respond = defaultRespond;
  const call1 = chatCall({ messages: weatherMessages(), tools: TOOLS, n: 2 });
  const out1 = await adapter.chat(u, call1);
  assert.equal(lastBody().n, 2);
  assert.equal(out1.completion.choices.length, 2);
  const args = out1.completion.choices.map((c) =>
    JSON.parse(c.message.tool_calls![0]!.function.arguments),
  );
  assert.deepEqual(args, [{ city: "Paris" }, { city: "Rome" }]);
  const { outcome: s } = await streamed(call1);
  assert.deepEqual(stable(s), stable(out1));

  const prev = remember(call1, out1);
  const messages = [
    ...weatherMessages(),
    out1.completion.choices[1]!.message,
    { role: "tool" as const, tool_call_id: "c", content: "21" },
  ];
  const out2 = await adapter.chat(u, chatCall({ messages, tools: TOOLS }, { previous: prev }));
  assert.equal(out2.promptNote, "extended previous prompt (choice 1)");
  const head = [...prev.promptIds, ...prev.choices[1]!.completionIds];
  assert.deepEqual((lastBody().prompt as number[]).slice(0, head.length), head);
});

test("length finish: no end-of-turn sampled, the next prompt closes the turn itself", async () => {
  respond = () => ({ text: "One two three four five six seven eight nine ten." });
  const call1 = chatCall({ messages: [{ role: "user", content: "Count" }], max_tokens: 4 });
  const out1 = await adapter.chat(u, call1);
  assert.equal(lastBody().max_tokens, 4);
  const ch = out1.completion.choices[0]!;
  assert.equal(ch.finish_reason, "length");
  assert.equal(out1.choices[0]!.completionIds!.length, 4);
  assert.ok(!out1.choices[0]!.completionIds!.includes(IM_END));
  assert.equal(ch.message.content, r.decode(out1.choices[0]!.completionIds!));

  const messages: ChatMessage[] = [
    { role: "user", content: "Count" },
    { role: "assistant", content: ch.message.content },
    { role: "user", content: "Go on" },
  ];
  const out2 = await adapter.chat(u, chatCall({ messages }, { previous: remember(call1, out1) }));
  assert.equal(out2.promptNote, "extended previous prompt");
  const head = [...out1.promptIds!, ...out1.choices[0]!.completionIds!, IM_END];
  assert.deepEqual((lastBody().prompt as number[]).slice(0, head.length), head);
});

test("no max_tokens: null is sent so vLLM allows up to the context length", async () => {
  respond = defaultRespond;
  const call = chatCall({ messages: [{ role: "user", content: "hi" }] });
  delete (call.request as { max_tokens?: number }).max_tokens;
  await adapter.chat(u, call).catch(() => {});
  assert.equal(lastBody().max_tokens, null);
  await adapter.chat(
    u,
    chatCall({ messages: [{ role: "user", content: "hi" }], max_completion_tokens: 7 }),
  );
  assert.equal(lastBody().max_tokens, 2000);
  const c2 = chatCall({ messages: [{ role: "user", content: "hi" }], max_completion_tokens: 7 });
  delete (c2.request as { max_tokens?: number }).max_tokens;
  await adapter.chat(u, c2);
  assert.equal(lastBody().max_tokens, 7);
});

test("sampling parameters are mapped onto the completions request", async () => {
  respond = defaultRespond;
  await adapter.chat(
    u,
    chatCall({
      messages: [{ role: "user", content: "hi" }],
      temperature: 0.7,
      top_p: 0.9,
      top_k: 20,
      min_p: 0.05,
      seed: 7,
      presence_penalty: 0.1,
      frequency_penalty: 0.2,
      repetition_penalty: 1.1,
      stop: "zzz",
    } as Partial<ChatCompletionRequest> & { messages: ChatMessage[] }),
  );
  const b = lastBody();
  assert.equal(b.temperature, 0.7);
  assert.equal(b.top_p, 0.9);
  assert.equal(b.top_k, 20);
  assert.equal(b.min_p, 0.05);
  assert.equal(b.seed, 7);
  assert.equal(b.presence_penalty, 0.1);
  assert.equal(b.frequency_penalty, 0.2);
  assert.equal(b.repetition_penalty, 1.1);
  assert.deepEqual(b.stop, ["zzz"]);
  assert.equal(b.messages, undefined);
});

test("stop strings cut the text, not the sampled ids", async () => {
  respond = () => "Alpha beta STOP gamma";
  const out = await adapter.chat(
    u,
    chatCall({ messages: [{ role: "user", content: "go" }], stop: ["STOP"] }),
  );
  const ch = out.completion.choices[0]!;
  assert.equal(ch.message.content, "Alpha beta ");
  assert.equal(ch.stop_reason, "STOP");
  assert.ok(r.decode(out.choices[0]!.completionIds!).includes("STOP"));
  const { outcome } = await streamed(
    chatCall({ messages: [{ role: "user", content: "go" }], stop: ["STOP"] }),
  );
  assert.deepEqual(stable(outcome), stable(out));
});

test("tool markup stays content when the request has no tools or tool_choice none", async () => {
  respond = defaultRespond;
  for (const extra of [{}, { tools: TOOLS, tool_choice: "none" }]) {
    const call = chatCall({ messages: weatherMessages(), ...extra });
    const out = await adapter.chat(u, call);
    const ch = out.completion.choices[0]!;
    assert.equal(ch.message.tool_calls, undefined);
    assert.equal(ch.finish_reason, "stop");
    assert.equal(
      ch.message.content,
      '<tool_call>\n{"name": "get_weather", "arguments": {"city":"Paris"}}\n</tool_call>',
    );
    const { outcome } = await streamed(call);
    assert.deepEqual(stable(outcome), stable(out));
  }
});

test("a template that opens <think> in the generation prompt: the completion starts in reasoning", async () => {
  const opening: ChatRenderer = Object.create(r, {
    renderPrompt: {
      value: (m: ChatMessage[], o: object) => {
        const p = r.renderPrompt(m, o);
        return { text: `${p.text}<think>\n`, ids: [...p.ids, ...r.encode("<think>\n")] };
      },
    },
  });
  respond = () => "I should greet.\n</think>\n\nHi there.";
  const out = await new VllmTitoAdapter(opening).chat(
    u,
    chatCall({ messages: [{ role: "user", content: "hey" }] }),
  );
  const m = out.completion.choices[0]!.message;
  assert.equal(m.reasoning_content, "I should greet.");
  assert.equal(m.content, "Hi there.");
});

test("upstream failures surface as the gateway's errors", async () => {
  respond = defaultRespond;
  const call = () => chatCall({ messages: [{ role: "user", content: "hi" }] });
  fake.faults.push({ kind: "status", status: 500 });
  await assert.rejects(
    adapter.chat(u, call()),
    (e: unknown) => e instanceof HttpError && e.status === 502,
  );
  fake.faults.push({
    kind: "status",
    status: 400,
    body: { error: { message: "This model's maximum context length is 32768 tokens.", code: 400 } },
  });
  await assert.rejects(
    adapter.chat(u, call()),
    (e: unknown) =>
      e instanceof HttpError && e.status === 400 && /maximum context length/.test(e.message),
  );
  fake.faults.push({ kind: "garbage" });
  await assert.rejects(
    adapter.chat(u, call()),
    (e: unknown) => e instanceof HttpError && e.status === 502 && /not JSON/.test(e.message),
  );
  // A reused connection that drops the call before answering is retried once on a new one
  // (h1.ts: the keep-alive race), so it takes two drops to fail.
  fake.faults.push({ kind: "destroy" }, { kind: "destroy" });
  await assert.rejects(adapter.chat(u, call()), (e: unknown) => e instanceof UpstreamConnectError);
  fake.faults.push({ kind: "destroy-mid-stream", afterChunks: 3 });
  await assert.rejects(
    streamed(call()),
    (e: unknown) => e instanceof HttpError && e.status === 502,
  );
  fake.faults.push({
    kind: "status",
    status: 200,
    body: {
      id: "x",
      object: "text_completion",
      choices: [{ index: 0, text: "hi", finish_reason: "stop" }],
    },
  });
  await assert.rejects(
    adapter.chat(u, call()),
    (e: unknown) => e instanceof HttpError && e.status === 502 && /token ids/.test(e.message),
  );
  // Still healthy afterwards.
  const ok = await adapter.chat(u, call());
  assert.equal(ok.completion.choices[0]!.finish_reason, "stop");
});

test("completions() forwards /v1/completions to vLLM with token ids", async () => {
  respond = () => "forty-two";
  const ids = r.encode("The answer is");
  const out = await adapter.completions(u, {
    request: { prompt: ids, max_tokens: 20 },
    model: "fake-model",
    signal: new AbortController().signal,
  });
  assert.equal(lastBody().return_token_ids, true);
  assert.deepEqual(out.promptIds, ids);
  assert.equal(out.completion.choices[0]!.text, "forty-two");
  assert.deepEqual(out.choices[0]!.completionIds, [...r.encode("forty-two"), IM_END]);
});

test("titoAdapters builds both adapters over one renderer", () => {
  const a = titoAdapters(r);
  assert.ok(a.vllm instanceof VllmTitoAdapter);
  assert.equal(typeof a.sglang.chat, "function");
});
