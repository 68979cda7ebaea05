/**
 * Loading model directories (errors, template variants, eos ids) and template behaviour that
 * Qwen3's template does not reach. Uses a tiny byte-level tokenizer written on the fly so each
 * directory loads in milliseconds.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import type { ChatMessage, Tool } from "../types/chat.js";
import {
  ChatTemplate,
  ChatTemplateError,
  loadRenderer,
  loadRendererSync,
  PrefixMismatchError,
  RendererLoadError,
  strftime,
} from "./index.js";

const ROOT = mkdtempSync(join(tmpdir(), "rllm-render-"));
after(() => rmSync(ROOT, { recursive: true, force: true }));

const CHATML =
  "{% for m in messages %}{{ '<|im_start|>' + m.role + '\\n' + m.content + '<|im_end|>' + '\\n' }}{% endfor %}" +
  "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

/** A byte-level BPE with no merges: one id per byte, plus three ChatML special tokens. */
function tinyTokenizer(): Record<string, unknown> {
  const printable: number[] = [];
  for (let b = 33; b <= 126; b++) printable.push(b);
  for (let b = 161; b <= 172; b++) printable.push(b);
  for (let b = 174; b <= 255; b++) printable.push(b);
  const chars = new Map<number, string>();
  for (const b of printable) chars.set(b, String.fromCharCode(b));
  let n = 0;
  for (let b = 0; b < 256; b++) if (!chars.has(b)) chars.set(b, String.fromCharCode(256 + n++));
  const vocab: Record<string, number> = {};
  for (let b = 0; b < 256; b++) vocab[chars.get(b)!] = b;
  const special = (id: number, content: string) => ({
    id,
    content,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: true,
  });
  return {
    version: "1.0",
    added_tokens: [
      special(256, "<|endoftext|>"),
      special(257, "<|im_start|>"),
      special(258, "<|im_end|>"),
    ],
    normalizer: null,
    pre_tokenizer: {
      type: "ByteLevel",
      add_prefix_space: false,
      trim_offsets: false,
      use_regex: true,
    },
    post_processor: null,
    decoder: { type: "ByteLevel", add_prefix_space: false, trim_offsets: false, use_regex: true },
    model: { type: "BPE", dropout: null, unk_token: null, vocab, merges: [] },
  };
}

let dirCount = 0;
/** Writes a model directory; a file given as null is left out, a string is written verbatim. */
function modelDir(files: Record<string, unknown>): string {
  const dir = join(ROOT, `m${dirCount++}`);
  mkdirSync(dir);
  const all: Record<string, unknown> = {
    "tokenizer.json": tinyTokenizer(),
    "tokenizer_config.json": {
      eos_token: "<|im_end|>",
      pad_token: "<|endoftext|>",
      chat_template: CHATML,
    },
    ...files,
  };
  for (const [name, content] of Object.entries(all)) {
    if (content === null) continue;
    writeFileSync(join(dir, name), typeof content === "string" ? content : JSON.stringify(content));
  }
  return dir;
}

const USER_ASSISTANT_USER: ChatMessage[] = [
  { role: "user", content: "a" },
  { role: "assistant", content: "b" },
  { role: "user", content: "c" },
];

test("a tiny ChatML model renders, encodes special tokens to their ids, finds its eos", async () => {
  const r = await loadRenderer(modelDir({}));
  const out = r.renderPrompt([{ role: "user", content: "hé" }]);
  assert.equal(out.text, "<|im_start|>user\nhé<|im_end|>\n<|im_start|>assistant\n");
  assert.deepEqual(out.ids.slice(0, 2), [257, "u".charCodeAt(0)]);
  assert.equal(r.decode(out.ids), out.text);
  assert.deepEqual(r.eosTokenIds, [258]);
  assert.equal(r.vocabSize, 259);
  assert.deepEqual(r.tokenBytes(0xc3), [0xc3]);
});

test("missing directory, file instead of directory", async () => {
  await assert.rejects(loadRenderer(join(ROOT, "nope")), (err: unknown) => {
    assert.ok(err instanceof RendererLoadError);
    assert.match(err.message, /does not exist/);
    return true;
  });
  const file = join(ROOT, "a-file");
  writeFileSync(file, "x");
  assert.throws(() => loadRendererSync(file), /is a file, not a model directory/);
});

test("missing tokenizer.json or tokenizer_config.json names the file and the fix", async () => {
  for (const name of ["tokenizer.json", "tokenizer_config.json"]) {
    const dir = modelDir({ [name]: null });
    await assert.rejects(loadRenderer(dir), (err: unknown) => {
      assert.ok(err instanceof RendererLoadError);
      assert.equal(err.file, join(dir, name));
      assert.match(err.message, new RegExp(`${name.replace(".", "\\.")} is missing`));
      assert.match(err.message, /download/);
      return true;
    });
    assert.throws(() => loadRendererSync(dir), RendererLoadError);
  }
});

test("malformed files are named with what to do", async () => {
  const cases: [Record<string, unknown>, string, RegExp][] = [
    [
      { "tokenizer_config.json": '{"chat_template": ' },
      "tokenizer_config.json",
      /not valid JSON.*fetch the file again/,
    ],
    [{ "tokenizer.json": "[1, 2]" }, "tokenizer.json", /must hold a JSON object/],
    [{ "tokenizer.json": { model: { type: "BPE" } } }, "tokenizer.json", /no "model.vocab"/],
    [
      { "tokenizer_config.json": { eos_token: "<|im_end|>" } },
      "tokenizer_config.json",
      /no "chat_template".*chatTemplate option/,
    ],
    [
      { "tokenizer_config.json": { chat_template: 42 } },
      "tokenizer_config.json",
      /must be a string or a list/,
    ],
    [
      { "tokenizer_config.json": { chat_template: [{ name: "tool_use", template: CHATML }] } },
      "tokenizer_config.json",
      /none named "default"/,
    ],
    [
      { "tokenizer_config.json": { chat_template: [{ name: "default" }] } },
      "tokenizer_config.json",
      /each entry must be/,
    ],
    [
      { "tokenizer_config.json": { chat_template: "{% for m in %}" } },
      "tokenizer_config.json",
      /does not parse/,
    ],
    [
      { "generation_config.json": "{oops" },
      "generation_config.json",
      /generation_config\.json is not valid JSON/,
    ],
    [{ "chat_template.jinja": "{% if %}" }, "chat_template.jinja", /does not parse/],
  ];
  for (const [files, file, pattern] of cases) {
    const dir = modelDir(files);
    await assert.rejects(loadRenderer(dir), (err: unknown) => {
      assert.ok(err instanceof RendererLoadError, String(err));
      assert.equal(err.file, join(dir, file));
      assert.match(err.message, pattern);
      return true;
    });
  }
});

test("chat_template list form: tool_use when tools are given, default otherwise", () => {
  const r = loadRendererSync(
    modelDir({
      "tokenizer_config.json": {
        eos_token: "<|im_end|>",
        chat_template: [
          { name: "default", template: `DEFAULT ${CHATML}` },
          { name: "tool_use", template: `TOOLS {{ tools | length }} ${CHATML}` },
        ],
      },
    }),
  );
  const tools: Tool[] = [{ type: "function", function: { name: "f" } }];
  const msgs: ChatMessage[] = [{ role: "user", content: "x" }];
  assert.ok(r.renderText(msgs).startsWith("DEFAULT <|im_start|>"));
  assert.ok(r.renderText(msgs, { tools }).startsWith("TOOLS 1 <|im_start|>"));
  assert.ok(r.renderText(msgs, { tools: [] }).startsWith("DEFAULT"));
});

test("chat_template.jinja wins over tokenizer_config, and the chatTemplate option over both", async () => {
  const dir = modelDir({ "chat_template.jinja": `JINJA ${CHATML}` });
  const msgs: ChatMessage[] = [{ role: "user", content: "x" }];
  assert.ok((await loadRenderer(dir)).renderText(msgs).startsWith("JINJA "));
  const custom = await loadRenderer(dir, { chatTemplate: `OPT ${CHATML}` });
  assert.ok(custom.renderText(msgs).startsWith("OPT "));
  const viaJson = modelDir({ "chat_template.json": { chat_template: `JSON ${CHATML}` } });
  assert.ok(loadRendererSync(viaJson).renderText(msgs).startsWith("JSON "));
});

test("generation_config eos ids join the eos set, so a completion ending on one is kept", () => {
  const r = loadRendererSync(modelDir({ "generation_config.json": { eos_token_id: [258, 256] } }));
  assert.deepEqual(r.eosTokenIds, [258, 256]);
  const prev = r.renderPrompt(USER_ASSISTANT_USER.slice(0, 1));
  const ended = r.extendPrompt(
    { promptIds: prev.ids, completionIds: [98, 256] },
    USER_ASSISTANT_USER,
    1,
  );
  assert.equal(ended.closedTurn, false);
  assert.deepEqual(ended.ids.slice(prev.ids.length, prev.ids.length + 3), [98, 256, 10]);
});

test("special tokens are template variables; a single bos_token is rendered as text", () => {
  const r = loadRendererSync(
    modelDir({
      "tokenizer_config.json": {
        bos_token: { content: "<|endoftext|>", special: true },
        eos_token: "<|im_end|>",
        chat_template: `{{ bos_token }}${CHATML}`,
      },
    }),
  );
  const out = r.renderPrompt([{ role: "user", content: "x" }]);
  assert.equal(out.ids[0], 256);
  assert.equal(out.ids.filter((id) => id === 256).length, 1);
});

test("PrefixMismatchError when the template rewrites history as turns are added", () => {
  // Like templates that put the system prompt into the last user turn.
  const moving =
    "{% for m in messages %}{% if m.role == 'user' %}<|im_start|>user\n{% if loop.last %}[SYS] {% endif %}{{ m.content }}<|im_end|>\n" +
    "{% else %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endif %}{% endfor %}" +
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}";
  const r = loadRendererSync(modelDir({}), { chatTemplate: moving });
  const prev = r.renderPrompt(USER_ASSISTANT_USER.slice(0, 1));
  assert.throws(
    () => r.extendPrompt({ promptIds: prev.ids, completionIds: [98, 258] }, USER_ASSISTANT_USER, 1),
    (err: unknown) => {
      assert.ok(err instanceof PrefixMismatchError);
      assert.equal(err.divergenceAt, "<|im_start|>user\n".length);
      assert.match(err.message, /render the whole conversation instead/);
      return true;
    },
  );
});

test("PrefixMismatchError when the template drops the assistant turn or has no end-of-turn token", () => {
  const dropsAssistant =
    "{% for m in messages %}{% if m.role != 'assistant' %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endif %}{% endfor %}";
  const r = loadRendererSync(modelDir({}), { chatTemplate: dropsAssistant });
  assert.throws(
    () => r.extendPrompt({ promptIds: [], completionIds: [] }, USER_ASSISTANT_USER, 1),
    PrefixMismatchError,
  );
  const plain = loadRendererSync(modelDir({}), {
    chatTemplate: "{% for m in messages %}{{ m.role }}: {{ m.content }}\n\n{% endfor %}",
  });
  assert.equal(plain.endOfTurn, null);
  assert.deepEqual(plain.eosTokenIds, [258]);
  assert.throws(
    () => plain.extendPrompt({ promptIds: [], completionIds: [] }, USER_ASSISTANT_USER, 1),
    /no end-of-turn marker/,
  );
});

test("extendPrompt when the assistant is the first message", () => {
  const r = loadRendererSync(modelDir({}));
  const msgs: ChatMessage[] = [
    { role: "assistant", content: "hello" },
    { role: "user", content: "c" },
  ];
  const out = r.extendPrompt({ promptIds: [7], completionIds: [8] }, msgs, 0);
  assert.equal(out.appendedText, "\n<|im_start|>user\nc<|im_end|>\n<|im_start|>assistant\n");
  assert.deepEqual(out.ids.slice(0, 3), [7, 8, 258]);
});

const goldens = JSON.parse(
  readFileSync(new URL("./fixtures/qwen3_goldens.json", import.meta.url), "utf8"),
) as {
  features: {
    template: string;
    special_tokens: Record<string, string>;
    tools: Tool[];
    messages: ChatMessage[];
    template_kwargs: Record<string, unknown>;
    text: string;
    text_no_generation_prompt: string;
  };
  strftime: { moment: string; cases: { format: string; text: string }[] };
};

test("transformers' environment: tojson kwargs, loop controls, namespace, filters (golden)", () => {
  const f = goldens.features;
  const t = new ChatTemplate([{ name: "default", template: f.template }], f.special_tokens, "test");
  const text = t.render({
    messages: f.messages,
    tools: f.tools,
    addGenerationPrompt: true,
    templateKwargs: f.template_kwargs,
  });
  assert.equal(text, f.text);
  const noGen = t.render({ messages: f.messages, tools: f.tools, addGenerationPrompt: false });
  assert.equal(noGen, f.text_no_generation_prompt);
});

test("raise_exception is the caller's 400; an engine failure is a 500", () => {
  const f = goldens.features;
  const t = new ChatTemplate([{ name: "default", template: f.template }], f.special_tokens, "test");
  const five = [
    ...f.messages,
    { role: "user", content: "4" },
    { role: "user", content: "5" },
  ] as ChatMessage[];
  assert.throws(
    () => t.render({ messages: five, tools: f.tools, addGenerationPrompt: true }),
    (err: unknown) => {
      assert.ok(err instanceof ChatTemplateError);
      assert.equal(err.status, 400);
      assert.equal(err.raisedByTemplate, true);
      assert.match(err.message, /rejected the conversation: too many messages: 5/);
      return true;
    },
  );
  const broken = new ChatTemplate([{ name: "default", template: "{{ 'x' * 3 }}" }], {}, "test");
  assert.throws(
    () => broken.render({ messages: [], addGenerationPrompt: true }),
    (err: unknown) =>
      err instanceof ChatTemplateError && err.status === 500 && !err.raisedByTemplate,
  );
  assert.throws(
    () =>
      broken.render({ messages: [], addGenerationPrompt: true, templateKwargs: { messages: [] } }),
    /collides/,
  );
});

test("strftime matches Python's C-locale strftime (golden)", () => {
  const moment = new Date(goldens.strftime.moment);
  for (const c of goldens.strftime.cases)
    assert.equal(strftime(moment, c.format), c.text, c.format);
  const t = new ChatTemplate(
    [{ name: "default", template: "{{ strftime_now('%Y') }}" }],
    {},
    "test",
  );
  assert.equal(
    t.render({ messages: [], addGenerationPrompt: false }),
    String(new Date().getFullYear()),
  );
});

test("content parts: flattened for string templates, kept for templates that loop over them", () => {
  const parts: ChatMessage[] = [
    {
      role: "user",
      content: [
        { type: "text", text: "one" },
        { type: "image_url", image_url: { url: "x" } },
        { type: "text", text: "two" },
      ],
    },
  ];
  const str = new ChatTemplate(
    [{ name: "default", template: "{{ messages[0].content }}" }],
    {},
    "t",
  );
  assert.equal(str.contentFormat, "string");
  assert.equal(str.render({ messages: parts, addGenerationPrompt: false }), "one\ntwo");
  const loop = new ChatTemplate(
    [
      {
        name: "default",
        template:
          "{% for m in messages %}{% for c in m['content'] %}[{{ c.type }}]{% endfor %}{% endfor %}",
      },
    ],
    {},
    "t",
  );
  assert.equal(loop.contentFormat, "openai");
  assert.equal(
    loop.render({ messages: parts, addGenerationPrompt: false }),
    "[text][image_url][text]",
  );
});

test("tool-call arguments reach the template as objects; non-JSON strings stay strings", () => {
  const t = new ChatTemplate(
    [
      {
        name: "default",
        template:
          "{% for c in messages[0].tool_calls %}{{ c.function.arguments | tojson }};{% endfor %}",
      },
    ],
    {},
    "t",
  );
  const msgs: ChatMessage[] = [
    {
      role: "assistant",
      content: null,
      tool_calls: [
        { id: "1", type: "function", function: { name: "f", arguments: '{"b":1,"a":"ü"}' } },
        { id: "2", type: "function", function: { name: "f", arguments: "not json" } },
        { id: "3", type: "function", function: { name: "f", arguments: "[1]" } },
      ],
    },
  ];
  assert.equal(
    t.render({ messages: msgs, addGenerationPrompt: false }),
    '{"b": 1, "a": "ü"};"not json";"[1]";',
  );
});
