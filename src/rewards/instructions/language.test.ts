import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { detectLanguage } from "./language.js";

// One sentence in each of the 30 languages IFEval's response_language asks for (ISO 639-1).
const SAMPLES: Record<string, string> = JSON.parse(
  readFileSync(new URL("./language-samples.json", import.meta.url), "utf8"),
);

test("detectLanguage names each of IFEval's 30 languages from one sentence", () => {
  assert.equal(Object.keys(SAMPLES).length, 30);
  for (const [code, text] of Object.entries(SAMPLES))
    assert.equal(detectLanguage(text), code, text);
});

test("detectLanguage reads upper-case text; nothing to detect is undefined", () => {
  assert.equal(detectLanguage(SAMPLES["en"]!.toUpperCase()), "en");
  assert.equal(detectLanguage("12345 --- !!!"), undefined);
  assert.equal(detectLanguage(""), undefined);
});
