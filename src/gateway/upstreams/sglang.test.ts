/**
 * The SGLang adapter (/generate with input ids) with Qwen3's real tokenizer and template against
 * the fake SGLang server: prompt ids, extension, cumulative and incremental streams, n > 1, finish
 * reasons, /v1/completions over /generate, and failures.
 */

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
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
import { UpstreamPool } from "./pool.js";
import { SglangAdapter } from "./sglang.js";
import type { ChatCall, Completion, CompletionCall } from "./types.js";
import { type Upstream, UpstreamConnectError } from "./upstream.js";

const TOOLS: Tool[] = [
  {
    type: "function",
    function: {
      name: "get_weather",
      parameters: { type: "object", properties: { city: { type: "string" } } },
    },
  },
];

function defaultRespond(info: FakeRequestInfo): string | FakeCompletion {
  const p = info.promptText;
  if (p.trimEnd().endsWith("</tool_response><|im_end|>\n<|im_start|>assistant")) {
    return { reasoning: "Tool said 21.", text: `It is 21°C ☀️ (${info.choiceIndex}).` };
  }
  if (p.includes("weather")) {
    return {
      reasoning: "Look it up.",
      text: "Let me check.",
      toolCalls: [
        { name: "get_weather", arguments: { city: info.choiceIndex ? "Rome" : "Paris" } },
      ],
    };
  }
  return `Plain answer ${info.choiceIndex} — ok 👍`;
}

let respond: (info: FakeRequestInfo) => string | FakeCompletion = defaultRespond;
let fake: FakeUpstream;
let fakeInc: FakeUpstream;
let pool: UpstreamPool;
let u: Upstream;
let uInc: Upstream;
const adapter = new SglangAdapter(r);

before(async () => {
  const options = qwen3Upstream("sglang", (info) => respond(info));
  fake = await startFakeUpstream(options);
  fakeInc = await startFakeUpstream({ ...options, sglangIncrementalStreaming: true });
  pool = directPool([fake, fakeInc]);
  [u, uInc] = pool.list() as [Upstream, Upstream];
});

after(async () => {
  await pool.close();
  await fake.close();
  await fakeInc.close();
});

// biome-ignore lint/suspicious/noExplicitAny: loose access to recorded request bodies
type J = Record<string, any>;
const lastBody = (f: FakeUpstream = fake): J => f.requests.at(-1)!.body as J;

const streamed = (up: Upstream, call: ChatCall) => streamChat(adapter, up, call);

const weather = (): ChatMessage[] => [{ role: "user", content: "What is the weather in Paris?" }];

test("chat: input_ids are the full render; sampling params and logprob options as SGLang reads them", async () => {
  respond = defaultRespond;
  const call = chatCall({
    messages: weather(),
    tools: TOOLS,
    temperature: 0.6,
    top_p: 0.95,
    seed: 3,
    stop: ["XYZ"],
  } as Partial<ChatCompletionRequest> & { messages: ChatMessage[] });
  const out = await adapter.chat(u, call);
  const body = lastBody();
  assert.equal(fake.requests.at(-1)!.path, "/generate");
  const expected = r.renderPrompt(weather(), { tools: TOOLS });
  assert.deepEqual(body.input_ids, expected.ids);
  assert.equal(body.return_logprob, true);
  assert.equal(body.logprob_start_len, -1);
  assert.equal(body.stream, false);
  assert.deepEqual(body.sampling_params, {
    temperature: 0.6,
    top_p: 0.95,
    max_new_tokens: 2000,
    stop: ["XYZ"],
    stop_token_ids: [IM_END],
    sampling_seed: 3,
    skip_special_tokens: false,
    no_stop_trim: true,
  });

  assert.equal(out.promptNote, "rendered: first call");
  assert.deepEqual(out.promptIds, expected.ids);
  const raw =
    '<think>\nLook it up.\n</think>\n\nLet me check.\n<tool_call>\n{"name": "get_weather", "arguments": {"city":"Paris"}}\n</tool_call>';
  const ids = [...r.encode(raw), IM_END];
  assert.deepEqual(out.choices[0]!.completionIds, ids);
  assert.deepEqual(
    out.choices[0]!.logprobs,
    ids.map((id, i) => fakeLogprob(id, i, 3)),
  );
  const ch = out.completion.choices[0]!;
  assert.equal(ch.finish_reason, "tool_calls");
  assert.equal(ch.message.content, "Let me check.");
  assert.equal(ch.message.reasoning_content, "Look it up.");
  assert.deepEqual(JSON.parse(ch.message.tool_calls![0]!.function.arguments), { city: "Paris" });
  assert.equal(ch.logprobs!.content!.length, ids.length);
});

test("chat: no max_tokens sends max_new_tokens null (SGLang's own default is 128)", async () => {
  respond = defaultRespond;
  const call = chatCall({ messages: [{ role: "user", content: "hi" }] });
  delete (call.request as { max_tokens?: number }).max_tokens;
  await adapter.chat(u, call);
  assert.equal(lastBody().sampling_params.max_new_tokens, null);
});

test("chat: the second turn extends the previous prompt + sampled ids", async () => {
  respond = defaultRespond;
  const call1 = chatCall({ messages: weather(), tools: TOOLS });
  const out1 = await adapter.chat(u, call1);
  const reply = out1.completion.choices[0]!.message;
  const messages: ChatMessage[] = [
    ...weather(),
    { ...reply },
    { role: "tool", tool_call_id: reply.tool_calls![0]!.id, content: "21" },
  ];
  const out2 = await adapter.chat(
    u,
    chatCall({ messages, tools: TOOLS }, { previous: remember(call1, out1) }),
  );
  assert.equal(out2.promptNote, "extended previous prompt");
  const sent = lastBody().input_ids as number[];
  const head = [...out1.promptIds!, ...out1.choices[0]!.completionIds!];
  assert.deepEqual(sent.slice(0, head.length), head);
  const full = r.renderText(messages, { tools: TOOLS });
  const appended = full.slice(full.indexOf("<|im_end|>", full.lastIndexOf("</tool_call>")) + 10);
  assert.deepEqual(sent.slice(head.length), r.encode(appended));
  assert.equal(out2.completion.choices[0]!.message.content, "It is 21°C ☀️ (0).");
});

test("chat stream: cumulative and incremental SGLang streams give the non-streaming outcome", async () => {
  respond = defaultRespond;
  for (const [up, f] of [
    [u, fake],
    [uInc, fakeInc],
  ] as const) {
    for (const n of [1, 2]) {
      for (const per of [1, 3]) {
        f.config.tokensPerChunk = per;
        const call = chatCall({ messages: weather(), tools: TOOLS, n });
        const plain = await adapter.chat(up, call);
        const { outcome, chunks } = await streamed(up, call);
        assert.equal(lastBody(f).stream, true);
        assert.deepEqual(stable(outcome), stable(plain), `n=${n} per=${per}`);
        assert.equal(outcome.completion.choices.length, n);
        // Each token id appears once across the chunks: deltas, not the cumulative lists.
        for (let i = 0; i < n; i++) {
          const streamedIds = chunks.flatMap((c) =>
            c.choices.filter((x) => x.index === i).flatMap((x) => x.token_ids ?? []),
          );
          assert.deepEqual(streamedIds, plain.choices[i]!.completionIds);
        }
        const acc = new ChatStreamAccumulator();
        for (const c of chunks) acc.push(c);
        const folded = acc.result();
        for (let i = 0; i < n; i++) {
          const want = outcome.completion.choices[i]!;
          const got = folded.choices[i]!;
          assert.equal(got.message.content, want.message.content);
          assert.equal(got.message.reasoning_content, want.message.reasoning_content);
          assert.deepEqual(got.message.tool_calls, want.message.tool_calls);
          assert.equal(got.finish_reason, want.finish_reason);
        }
        assert.deepEqual(chunks.at(-1)!.choices, []);
        assert.equal(
          chunks.at(-1)!.usage!.completion_tokens,
          plain.completion.usage!.completion_tokens,
        );
      }
      f.config.tokensPerChunk = 1;
    }
  }
  const args = (
    await adapter.chat(u, chatCall({ messages: weather(), tools: TOOLS, n: 2 }))
  ).completion.choices.map((c) => JSON.parse(c.message.tool_calls![0]!.function.arguments).city);
  assert.deepEqual(args, ["Paris", "Rome"]);
  assert.equal(lastBody().sampling_params.n, 2);
});

test("chat stream: multi-byte characters split across tokens never show as U+FFFD", async () => {
  respond = () => "Emoji 🎉🎉 and 你好世界 and ☀️.";
  const { outcome, chunks } = await streamed(
    u,
    chatCall({ messages: [{ role: "user", content: "x" }] }),
  );
  const text = chunks.flatMap((c) => c.choices.map((x) => x.delta.content ?? "")).join("");
  assert.equal(text, "Emoji 🎉🎉 and 你好世界 and ☀️.");
  assert.equal(outcome.completion.choices[0]!.message.content, text);
  for (const c of chunks)
    for (const x of c.choices) assert.ok(!(x.delta.content ?? "").includes("\uFFFD"));
});

test("chat: length finish", async () => {
  respond = () => "A long answer that goes on and on and on.";
  const out = await adapter.chat(
    u,
    chatCall({ messages: [{ role: "user", content: "x" }], max_tokens: 3 }),
  );
  const ch = out.completion.choices[0]!;
  assert.equal(ch.finish_reason, "length");
  assert.equal(out.choices[0]!.completionIds!.length, 3);
  assert.equal(ch.message.content, r.decode(out.choices[0]!.completionIds!));
});

test("chat: an abort finish is a 502 with SGLang's message; a 4xx abort keeps its status", async () => {
  respond = defaultRespond;
  fake.faults.push({
    kind: "status",
    status: 200,
    body: {
      text: "",
      output_ids: [],
      meta_info: { id: "a", finish_reason: { type: "abort", message: "scheduler OOM" } },
    },
  });
  await assert.rejects(
    adapter.chat(u, chatCall({ messages: [{ role: "user", content: "x" }] })),
    (e: unknown) => e instanceof HttpError && e.status === 502 && /scheduler OOM/.test(e.message),
  );
  fake.faults.push({
    kind: "status",
    status: 200,
    body: {
      text: "",
      output_ids: [],
      meta_info: {
        finish_reason: { type: "abort", message: "input is too long", status_code: 400 },
      },
    },
  });
  await assert.rejects(
    adapter.chat(u, chatCall({ messages: [{ role: "user", content: "x" }] })),
    (e: unknown) => e instanceof HttpError && e.status === 400 && /too long/.test(e.message),
  );
});

test("chat: upstream failures surface as the gateway's errors", async () => {
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
    body: { error: { message: "bad sampling param" } },
  });
  await assert.rejects(
    adapter.chat(u, call()),
    (e: unknown) =>
      e instanceof HttpError && e.status === 400 && /bad sampling param/.test(e.message),
  );
  fake.faults.push({ kind: "garbage" });
  await assert.rejects(
    adapter.chat(u, call()),
    (e: unknown) => e instanceof HttpError && e.status === 502,
  );
  // A reused connection that drops the call before answering is retried once on a new one
  // (h1.ts: the keep-alive race), so it takes two drops to fail.
  fake.faults.push({ kind: "destroy" }, { kind: "destroy" });
  await assert.rejects(adapter.chat(u, call()), (e: unknown) => e instanceof UpstreamConnectError);
  fake.faults.push({ kind: "destroy-mid-stream", afterChunks: 2 });
  await assert.rejects(
    streamed(u, call()),
    (e: unknown) => e instanceof HttpError && e.status === 502,
  );
  fake.faults.push({ kind: "status", status: 200, body: { text: "hi", meta_info: {} } });
  await assert.rejects(
    adapter.chat(u, call()),
    (e: unknown) => e instanceof HttpError && e.status === 502 && /output_ids/.test(e.message),
  );
  const ok = await adapter.chat(u, call());
  assert.equal(ok.completion.choices[0]!.finish_reason, "stop");
});

function completionCall(
  request: CompletionCall["request"],
  onChunk?: (c: Completion) => void,
): CompletionCall {
  return {
    request,
    model: "fake-model",
    signal: new AbortController().signal,
    ...(onChunk ? { onChunk } : {}),
  };
}

test("completions over /generate: a string prompt is tokenized; text, ids and logprobs come back", async () => {
  respond = () => "Paris.";
  const prompt = "<|im_start|>user\nCapital of France?<|im_end|>\n<|im_start|>assistant\n";
  const out = await adapter.completions(u, completionCall({ prompt, max_tokens: 50, logprobs: 1 }));
  const body = lastBody();
  assert.deepEqual(body.input_ids, r.encode(prompt));
  assert.equal(body.sampling_params.max_new_tokens, 50);
  assert.equal(body.sampling_params.stop_token_ids, undefined);
  const c = out.completion;
  assert.equal(c.object, "text_completion");
  const ids = [...r.encode("Paris."), IM_END];
  assert.deepEqual(c.choices[0]!.token_ids, ids);
  assert.deepEqual(c.choices[0]!.prompt_token_ids, r.encode(prompt));
  assert.equal(c.choices[0]!.text, "Paris.");
  assert.equal(c.choices[0]!.finish_reason, "stop");
  assert.deepEqual(
    c.choices[0]!.logprobs!.token_logprobs,
    ids.map((id, i) => fakeLogprob(id, i, 0)),
  );
  assert.deepEqual(
    c.choices[0]!.logprobs!.tokens,
    ids.map((id) => r.tokenText(id)),
  );
  assert.deepEqual(out.promptIds, r.encode(prompt));
  assert.deepEqual(out.choices[0]!.completionIds, ids);
  assert.equal(out.tokenSource, "renderer");
  assert.deepEqual(c.usage, {
    prompt_tokens: r.encode(prompt).length,
    completion_tokens: ids.length,
    total_tokens: r.encode(prompt).length + ids.length,
  });

  // Default: 16 tokens, as OpenAI's and vLLM's completions endpoints.
  await adapter.completions(u, completionCall({ prompt: [1, 2, 3] }));
  assert.equal(lastBody().sampling_params.max_new_tokens, 16);
  assert.deepEqual(lastBody().input_ids, [1, 2, 3]);
});

test("completions over /generate: streaming, batches and n > 1 match the non-streaming result", async () => {
  respond = (info) => `Answer ${info.promptIndex}.${info.choiceIndex} 🎉`;
  for (const [up, f] of [
    [u, fake],
    [uInc, fakeInc],
  ] as const) {
    const request = { prompt: ["First?", "Second?"], n: 2, max_tokens: 40 };
    const plain = await adapter.completions(up, completionCall(request));
    assert.deepEqual(lastBody(f).input_ids, [r.encode("First?"), r.encode("Second?")]);
    assert.deepEqual(
      plain.completion.choices.map((c) => c.text),
      ["Answer 0.0 🎉", "Answer 0.1 🎉", "Answer 1.0 🎉", "Answer 1.1 🎉"],
    );
    assert.deepEqual(plain.completion.choices[3]!.prompt_token_ids, r.encode("Second?"));
    const chunks: Completion[] = [];
    const s = await adapter.completions(
      up,
      completionCall(request, (c) => chunks.push(structuredClone(c))),
    );
    const norm = (o: typeof plain) => ({
      ...o,
      completion: { ...o.completion, id: "", created: 0 },
    });
    assert.deepEqual(norm(s), norm(plain));
    for (let i = 0; i < 4; i++) {
      const mine = chunks.flatMap((c) => c.choices.filter((x) => x.index === i));
      assert.equal(mine.map((x) => x.text).join(""), plain.completion.choices[i]!.text);
      assert.deepEqual(
        mine.flatMap((x) => x.token_ids ?? []),
        plain.choices[i]!.completionIds,
      );
      assert.deepEqual(mine[0]!.prompt_token_ids, plain.completion.choices[i]!.prompt_token_ids);
      assert.equal(mine.at(-1)!.finish_reason, "stop");
    }
    assert.deepEqual(chunks.at(-1)!.choices, []);
    assert.deepEqual(chunks.at(-1)!.usage, plain.completion.usage);
  }
});

test("completions over /generate: echo is refused, bad prompts are 400", async () => {
  await assert.rejects(
    adapter.completions(u, completionCall({ prompt: "x", echo: true })),
    (e: unknown) => e instanceof HttpError && e.status === 400,
  );
  await assert.rejects(
    adapter.completions(u, completionCall({ prompt: [] as number[] })),
    (e: unknown) => e instanceof HttpError && e.status === 400,
  );
});

test("LoRA: a model other than the upstream's base goes as lora_path; none without an upstream model", async () => {
  respond = defaultRespond;
  const lora = await startFakeUpstream({
    ...qwen3Upstream("sglang", (info) => respond(info)),
    weightSync: {},
  });
  const p = new UpstreamPool([{ url: lora.url, kind: "sglang", model: "fake-model" }], {
    timeoutMs: 10_000,
    healthCheckIntervalMs: 0,
    connectRetries: 0,
  });
  try {
    const [based] = p.list() as [Upstream];
    const hi = (model: string) =>
      chatCall({ messages: [{ role: "user", content: "hi" }] }, { model });
    await adapter.chat(based, hi("fake-model"));
    assert.equal(lastBody(lora).lora_path, undefined);
    lora.weights!.adapters.set("rllm-v3", "/weights/rllm-v3");
    await adapter.chat(based, hi("rllm-v3"));
    assert.equal(lastBody(lora).lora_path, "rllm-v3");
    // an adapter the server has not loaded: SGLang's 400, with its message
    await assert.rejects(adapter.chat(based, hi("rllm-v1")), /LoRA adapter rllm-v1 is not loaded/);
    // an upstream without a model of its own: the call's model is only a name
    await adapter.chat(u, hi("rllm-v3"));
    assert.equal(lastBody().lora_path, undefined);
  } finally {
    await p.close();
    await lora.close();
  }
});
