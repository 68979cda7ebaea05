/**
 * Token-in/token-out end to end: an unmodified openai (and anthropic) client agent runs a
 * multi-turn tool-using conversation through the gateway with Qwen3's real template, against a
 * fake SGLang and a fake vLLM that are fed token ids. The second call's prompt ids must be the
 * first call's prompt + sampled ids + the rendered tool turn — never a re-tokenization.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import type { FakeCompletion, FakeRequestInfo } from "../testing/fake-upstream.js";
import { type Stack, startStack } from "../testing/harness.js";
import { qwen3Upstream, qwen3 as renderer } from "../testing/tito.js";
import type { TraceRecord } from "../types/index.js";
import { Gateway } from "./server.js";

function respond(info: FakeRequestInfo): string | FakeCompletion {
  if (info.promptText.includes("<tool_response>"))
    return { reasoning: "The tool answered.", text: "It is 21°C in Paris." };
  return {
    reasoning: "I should call the tool.",
    text: "",
    toolCalls: [{ name: "get_weather", arguments: { city: "Paris" } }],
  };
}

const TOOLS = [
  {
    type: "function" as const,
    function: {
      name: "get_weather",
      parameters: { type: "object", properties: { city: { type: "string" } } },
    },
  },
];

for (const kind of ["sglang", "vllm"] as const) {
  describe(`token-in/token-out through the gateway (${kind})`, () => {
    let s: Stack;
    before(async () => {
      s = await startStack({
        upstreams: [qwen3Upstream(kind, respond)],
        gatewayOptions: { renderer },
      });
    });
    after(() => s.close());

    test("an openai-client agent with a tool: prompt 2 = prompt 1 + sampled ids + tool turn", async () => {
      const sess = await s.session();
      const client = new OpenAI({ baseURL: `${sess.url}/v1`, apiKey: sess.token });
      const messages: OpenAI.ChatCompletionMessageParam[] = [
        { role: "user", content: "What is the weather in Paris?" },
      ];
      const first = await client.chat.completions.create({
        model: "qwen",
        messages,
        tools: TOOLS,
        max_tokens: 200,
      });
      const msg = first.choices[0]!.message;
      assert.equal(first.choices[0]?.finish_reason, "tool_calls");
      assert.equal(
        msg.tool_calls?.[0]?.type === "function" && msg.tool_calls[0].function.name,
        "get_weather",
      );
      messages.push(msg);
      messages.push({ role: "tool", tool_call_id: msg.tool_calls![0]!.id, content: "21°C, sunny" });
      const stream = await client.chat.completions.create({
        model: "qwen",
        messages,
        tools: TOOLS,
        max_tokens: 200,
        stream: true,
      });
      let text = "";
      for await (const c of stream) text += c.choices[0]?.delta.content ?? "";
      assert.equal(text, "It is 21°C in Paris.");

      const ts = ((await s.admin(`/sessions/${sess.id}/traces`)).body as { data: TraceRecord[] })
        .data;
      assert.equal(ts.length, 2);
      const [t1, t2] = ts as [TraceRecord, TraceRecord];
      assert.equal(t1.tokenSource, "renderer");
      assert.equal(t1.promptNote, "rendered: first call");
      assert.deepEqual(t1.promptIds, renderer.renderPrompt(t1.messages!, { tools: TOOLS }).ids);
      assert.equal(t2.promptNote, "extended previous prompt");
      const prefix = [...t1.promptIds!, ...t1.choices[0]!.completionIds!];
      assert.deepEqual(t2.promptIds!.slice(0, prefix.length), prefix, "sampled ids reused exactly");
      assert.equal(t1.choices[0]!.reasoning, "I should call the tool.");
      assert.equal(t2.choices[0]!.reasoning, "The tool answered.");
      assert.equal(t2.choices[0]!.completionIds!.length, t2.choices[0]!.logprobs!.length);
      // The ids the upstream received are the ids the trace holds.
      const sent = s.upstreams[0]!.requests.at(-1)!.body as Record<string, unknown>;
      assert.deepEqual(sent.input_ids ?? sent.prompt, t2.promptIds);
    });

    test("an anthropic-client agent runs the same loop", async () => {
      const sess = await s.session();
      const client = new Anthropic({ baseURL: sess.url, apiKey: sess.token });
      const tools = [
        {
          name: "get_weather",
          input_schema: { type: "object" as const, properties: { city: { type: "string" } } },
        },
      ];
      const first = await client.messages.create({
        model: "qwen",
        max_tokens: 200,
        tools,
        messages: [{ role: "user", content: "What is the weather in Paris?" }],
      });
      const use = first.content.find((b) => b.type === "tool_use")!;
      assert.deepEqual(use.type === "tool_use" && use.input, { city: "Paris" });
      const second = await client.messages.create({
        model: "qwen",
        max_tokens: 200,
        tools,
        messages: [
          { role: "user", content: "What is the weather in Paris?" },
          { role: "assistant", content: first.content },
          {
            role: "user",
            content: [{ type: "tool_result", tool_use_id: use.id, content: "21°C, sunny" }],
          },
        ],
      });
      assert.deepEqual(
        second.content
          .filter((b) => b.type === "text")
          .map((b) => (b.type === "text" ? b.text : "")),
        ["It is 21°C in Paris."],
      );
      const ts = ((await s.admin(`/sessions/${sess.id}/traces`)).body as { data: TraceRecord[] })
        .data;
      assert.equal(ts[1]!.promptNote, "extended previous prompt");
    });
  });
}

test("a gateway with an sglang upstream and no tokenizer refuses to start, saying what to pass", () => {
  assert.throws(
    () => new Gateway({ config: { upstreams: [{ url: "http://127.0.0.1:1", kind: "sglang" }] } }),
    /needs a tokenizer: start the gateway with --tokenizer DIR/,
  );
  assert.throws(
    () => new Gateway({ config: { tokenizer: "/nonexistent/model", upstreams: [] } }),
    /tokenizer\.json|nonexistent/,
  );
});
