import assert from "node:assert/strict";
import { test } from "node:test";
import { assistantBody, chatMLSegments, chatMLText, parseAssistant } from "./chatml.js";

const turn = {
  reasoning: "plan",
  content: "Adding.",
  toolCalls: [
    { name: "add", arguments: '{"a": 2, "b": 2}' },
    { name: 'q"n', arguments: "{}" },
  ],
};

test("an assistant body in the Hermes shape, each call's pieces tagged with its index", () => {
  const pieces = assistantBody(turn);
  assert.equal(
    chatMLText(pieces),
    '<think>\nplan\n</think>\n\nAdding.\n<tool_call>\n{"name": "add", "arguments": {"a": 2, "b": 2}}\n</tool_call>\n' +
      '<tool_call>\n{"name": "q\\"n", "arguments": {}}\n</tool_call>',
  );
  assert.deepEqual(
    pieces.filter((p) => p.tool === 1).map((p) => p.text),
    ["\n", "<tool_call>", '\n{"name": "', 'q\\"n', '", "arguments": ', "{}", "}\n", "</tool_call>"],
  );
  assert.ok(pieces.every((p) => p.text !== ""));
});

test("parseAssistant reads back what assistantBody wrote", () => {
  const parsed = parseAssistant(`${chatMLText(assistantBody(turn))}<|im_end|>`);
  assert.equal(parsed.reasoning_content, "plan");
  assert.equal(parsed.content, "Adding.");
  assert.deepEqual(
    parsed.tool_calls.map((c) => [c.function.name, c.function.arguments]),
    turn.toolCalls.map((c) => [c.name, c.arguments]),
  );
});

test("a conversation's assistant body and <|im_end|> are its one trained segment", () => {
  const segs = chatMLSegments(
    [
      { role: "user", content: "hi" },
      { role: "assistant", content: "hello" },
    ],
    { addGenerationPrompt: true },
  );
  assert.equal(
    segs.map((s) => chatMLText(s.pieces)).join(""),
    "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\nhello<|im_end|>\n<|im_start|>assistant\n",
  );
  assert.deepEqual(
    segs.filter((s) => s.trained).map((s) => chatMLText(s.pieces)),
    ["hello<|im_end|>"],
  );
});
