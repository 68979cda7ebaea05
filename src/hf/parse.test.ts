import assert from "node:assert/strict";
import { test } from "node:test";
import {
  collectDeltas,
  createStreamParser,
  type Delta,
  type ParseOptions,
  parseCompletion,
  promptOpensReasoning,
  pythonJsonDumps,
} from "./index.js";

/** Deterministic ids so whole-text and streamed results compare equal. */
function counterIds(): () => string {
  let n = 0;
  return () => `call_${n++}`;
}

function parse(text: string, opts: ParseOptions = {}) {
  return parseCompletion(text, { newToolCallId: counterIds(), ...opts });
}

test("plain content", () => {
  assert.deepEqual(parse("Hello world"), {
    content: "Hello world",
    reasoning_content: null,
    tool_calls: [],
  });
  assert.deepEqual(parse(""), { content: null, reasoning_content: null, tool_calls: [] });
});

test("reasoning then content, newlines around the blocks trimmed as the template does", () => {
  assert.deepEqual(parse("<think>\nLet me think.\n\nStep 2.\n</think>\n\nThe answer is 4."), {
    content: "The answer is 4.",
    reasoning_content: "Let me think.\n\nStep 2.",
    tool_calls: [],
  });
  // An empty think block (enable_thinking=false style) yields no reasoning.
  assert.deepEqual(parse("<think>\n\n</think>\n\nHi"), {
    content: "Hi",
    reasoning_content: null,
    tool_calls: [],
  });
});

test("completion that starts inside the reasoning", () => {
  assert.deepEqual(parse("Let me think.\n</think>\n\nAnswer", { startInReasoning: true }), {
    content: "Answer",
    reasoning_content: "Let me think.",
    tool_calls: [],
  });
  // Without the option, a stray </think> is content.
  assert.equal(parse("a</think>b").content, "a</think>b");
});

test("truncated inside the reasoning", () => {
  assert.deepEqual(parse("<think>\nhmm, so"), {
    content: null,
    reasoning_content: "hmm, so",
    tool_calls: [],
  });
});

test("<think> later in the content is text", () => {
  assert.equal(parse("Use the <think> tag.").content, "Use the <think> tag.");
});

test("tool calls: arguments re-serialised as Python's json.dumps, content kept", () => {
  const text =
    "<think>\nNeed weather.\n</think>\n\nChecking both.\n" +
    '<tool_call>\n{"name": "get_weather", "arguments": {"city":"Zürich","n":[1,2.5,{"x":null}]}}\n</tool_call>\n' +
    '<tool_call>\n{"name": "search", "arguments": {}}\n</tool_call>';
  assert.deepEqual(parse(text), {
    content: "Checking both.",
    reasoning_content: "Need weather.",
    tool_calls: [
      {
        id: "call_0",
        type: "function",
        function: {
          name: "get_weather",
          arguments: '{"city": "Zürich", "n": [1, 2.5, {"x": null}]}',
        },
      },
      { id: "call_1", type: "function", function: { name: "search", arguments: "{}" } },
    ],
  });
});

test("tool call argument forms: string kept, missing becomes {}, 'parameters' accepted", () => {
  const r = parse(
    '<tool_call>\n{"name": "a", "arguments": "{\\"q\\": 1}"}\n</tool_call>\n' +
      '<tool_call>\n{"name": "b"}\n</tool_call>\n' +
      '<tool_call>\n{"name": "c", "parameters": {"k": true}}\n</tool_call>',
  );
  assert.equal(r.content, null);
  assert.deepEqual(
    r.tool_calls.map((c) => [c.function.name, c.function.arguments]),
    [
      ["a", '{"q": 1}'],
      ["b", "{}"],
      ["c", '{"k": true}'],
    ],
  );
});

test("malformed tool-call JSON stays in the content, never throws", () => {
  const bad = '<tool_call>\n{"name": "f", "arguments": {oops}}\n</tool_call>';
  assert.deepEqual(parse(`Trying.\n${bad}`), {
    content: `Trying.\n${bad}`,
    reasoning_content: null,
    tool_calls: [],
  });
  const noName = '<tool_call>\n{"arguments": {}}\n</tool_call>';
  assert.equal(parse(noName).content, noName);
  const arrayArgs = '<tool_call>\n{"name": "f", "arguments": [1]}\n</tool_call>';
  assert.equal(parse(arrayArgs).content, arrayArgs);
  // A good call after a bad one is still a call.
  const mixed = parse(`${bad}\n<tool_call>\n{"name": "g", "arguments": {}}\n</tool_call>`);
  assert.equal(mixed.content, bad);
  assert.equal(mixed.tool_calls[0]?.function.name, "g");
});

test("unclosed tool call: a call when its JSON is complete, content otherwise", () => {
  const complete = parse('<tool_call>\n{"name": "f", "arguments": {"a": 1}}\n');
  assert.equal(complete.content, null);
  assert.equal(complete.tool_calls[0]?.function.arguments, '{"a": 1}');
  const cut = parse('Hi\n<tool_call>\n{"name": "f", "argu');
  assert.equal(cut.content, 'Hi\n<tool_call>\n{"name": "f", "argu');
  assert.deepEqual(cut.tool_calls, []);
});

test("text after tool calls is content", () => {
  const r = parse('<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>\n\nDone.\n');
  assert.equal(r.content, "Done.");
  assert.equal(r.tool_calls.length, 1);
});

test("default ids look like call_<24 alphanumerics> and differ", () => {
  const r = parseCompletion(
    '<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call><tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>',
  );
  const [a, b] = r.tool_calls;
  assert.match(a!.id, /^call_[A-Za-z0-9]{24}$/);
  assert.notEqual(a!.id, b!.id);
});

test("streaming holds back only what may be a tag, and emits a call when its block closes", () => {
  const p = createStreamParser({ newToolCallId: counterIds() });
  assert.deepEqual(p.push("<thi"), []);
  assert.deepEqual(p.push("nk>\nPlan"), [{ reasoning_content: "Plan" }]);
  assert.deepEqual(p.push(" more</th"), [{ reasoning_content: " more" }]);
  assert.deepEqual(p.push("ink>\n\nSure <b>x</b> <tool_"), [{ content: "Sure <b>x</b> " }]);
  assert.deepEqual(p.push('call>\n{"name": "f", "arguments": {"a": 1}}\n'), []);
  assert.deepEqual(p.push("</tool_call>"), [
    { tool_call: { index: 0, id: "call_0", name: "f", arguments: '{"a": 1}' } },
  ]);
  assert.deepEqual(p.push("\n"), []);
  assert.deepEqual(p.finish(), []);
  assert.deepEqual(p.finish(), []);
  assert.throws(() => p.push("x"), /after finish/);
});

test("streaming releases held newlines once more text follows", () => {
  const p = createStreamParser();
  assert.deepEqual(p.push("a\n\n"), [{ content: "a" }]);
  assert.deepEqual(p.push("b"), [{ content: "\n\nb" }]);
  assert.deepEqual(p.finish(), []);
});

const STREAM_INPUTS: { text: string; opts?: ParseOptions }[] = [
  { text: "Hello world" },
  { text: "\n\n<think>\nA < B and </thin k>\n</think>\n\nAnswer <tool_ and more\n" },
  {
    text:
      "<think>\nweather?\n</think>\n\nLet me check.\n" +
      '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Zürich"}}\n</tool_call>\n' +
      '<tool_call>\n{"name": "bad", "arguments": {nope}}\n</tool_call>\n' +
      '<tool_call>\n{"name": "s", "arguments": {"q": "</tool_call"}}\n</tool_call>\nbye',
  },
  { text: "thinking...\n</think>\nok <think> not a tag", opts: { startInReasoning: true } },
  { text: '<think>cut <tool_call>\n{"name": "x"}' },
  { text: 'pre\n\n<tool_call>\n{"name": "f", "arguments": {"a": [1, 2]}}' },
  { text: "<tool_call>\n{broken\n" },
  { text: "  <think>x</think>y" },
];

function streamed(
  text: string,
  cuts: number[],
  opts: ParseOptions = {},
): ReturnType<typeof collectDeltas> {
  const p = createStreamParser({ newToolCallId: counterIds(), ...opts });
  const deltas: Delta[] = [];
  let from = 0;
  for (const cut of [...cuts, text.length]) {
    deltas.push(...p.push(text.slice(from, cut)));
    from = cut;
  }
  deltas.push(...p.finish());
  for (const d of deltas) {
    if ("content" in d) assert.notEqual(d.content, "");
    if ("reasoning_content" in d) assert.notEqual(d.reasoning_content, "");
  }
  return collectDeltas(deltas);
}

test("stream output adds up to parseCompletion, split at every position and per character", () => {
  for (const { text, opts } of STREAM_INPUTS) {
    const whole = parse(text, opts);
    for (let i = 0; i <= text.length; i++) {
      assert.deepEqual(
        streamed(text, [i], opts),
        whole,
        `split at ${i} of ${JSON.stringify(text)}`,
      );
    }
    const everyChar = [...Array(text.length).keys()];
    assert.deepEqual(
      streamed(text, everyChar, opts),
      whole,
      `per character: ${JSON.stringify(text)}`,
    );
  }
});

test("promptOpensReasoning", () => {
  assert.equal(promptOpensReasoning("<|im_start|>assistant\n<think>\n"), true);
  assert.equal(promptOpensReasoning("<|im_start|>assistant\n<think>\n\n</think>\n\n"), false);
  assert.equal(promptOpensReasoning("<|im_start|>assistant\n"), false);
});

test("pythonJsonDumps matches Python's json.dumps(ensure_ascii=False)", () => {
  assert.equal(
    pythonJsonDumps({ a: 'é\n"\u0001', b: [true, false, null], c: { d: 1.5, e: -2 } }),
    '{"a": "é\\n\\"\\u0001", "b": [true, false, null], "c": {"d": 1.5, "e": -2}}',
  );
  assert.equal(pythonJsonDumps(1e-7), "1e-07");
  assert.equal(pythonJsonDumps(0.0001), "0.0001");
  assert.equal(pythonJsonDumps(0.00001), "1e-05");
  assert.equal(pythonJsonDumps(1.5e16), "15000000000000000");
  assert.equal(pythonJsonDumps(123.456), "123.456");
  assert.equal(pythonJsonDumps(2.5e20), "250000000000000000000");
  assert.equal(pythonJsonDumps(1.25e300), "1.25e+300");
  assert.equal(pythonJsonDumps([]), "[]");
  assert.equal(pythonJsonDumps({}), "{}");
});
