import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import { type Stack, startStack } from "../testing/harness.js";
import type { TraceRecord } from "../types/index.js";

describe("a hosted OpenAI-compatible upstream (no token ids)", () => {
  let s: Stack;
  before(async () => {
    // rejectUnknownParams: the fake answers 400 to vLLM-only fields, as strict hosted APIs do.
    s = await startStack({ upstreams: [{ kind: "openai", rejectUnknownParams: true }] });
  });
  after(() => s.close());

  test("the request goes through untouched and the trace keeps the text, saying there are no ids", async () => {
    const sess = await s.session({ samplingParams: { temperature: 0.2 } });
    const client = new OpenAI({ baseURL: `${sess.url}/v1`, apiKey: sess.token });
    const r = await client.chat.completions
      .create({ model: "gpt-x", messages: [{ role: "user", content: "hosted" }] })
      .withResponse();
    assert.equal(typeof r.data.choices[0]?.message.content, "string");
    const sent = s.upstreams[0]!.requests.at(-1)!.body as Record<string, unknown>;
    assert.equal(sent.return_token_ids, undefined);
    assert.equal(sent.temperature, 0.2);
    const t = (await s.admin(`/traces/${r.response.headers.get("x-rllm-trace-id")}`))
      .body as TraceRecord;
    assert.equal(t.tokenSource, "none");
    assert.equal(t.promptIds, null);
    assert.equal(t.choices[0]?.completionIds, null);
    assert.equal(t.choices[0]?.content, r.data.choices[0]?.message.content);
    const stream = await client.chat.completions.create({
      model: "gpt-x",
      messages: [{ role: "user", content: "hosted" }],
      stream: true,
    });
    let text = "";
    for await (const c of stream) text += c.choices[0]?.delta.content ?? "";
    assert.equal(text, r.data.choices[0]?.message.content);
  });

  test("logprobs the agent asks for are recorded even without token ids", async () => {
    const sess = await s.session();
    const client = new OpenAI({ baseURL: `${sess.url}/v1`, apiKey: sess.token });
    const r = await client.chat.completions
      .create({ model: "gpt-x", messages: [{ role: "user", content: "lp" }], logprobs: true })
      .withResponse();
    const t = (await s.admin(`/traces/${r.response.headers.get("x-rllm-trace-id")}`))
      .body as TraceRecord;
    assert.equal(t.choices[0]?.logprobs?.length, r.data.choices[0]?.logprobs?.content?.length);
  });
});
