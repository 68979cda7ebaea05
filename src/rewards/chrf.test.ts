import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import type { Task } from "../types/index.js";
import { chrfGrader, chrfScore, extractTranslation } from "./chrf.js";
import { getGrader } from "./index.js";

interface SacrebleuCase {
  hyp: string;
  ref: string;
  chrf: number;
  chrfpp: number;
}

/** Made by fixtures/make-chrf.py with sacrebleu 2.6.0 (CHRF() and CHRF(word_order=2)). */
const fixture = JSON.parse(
  readFileSync(new URL("./fixtures/chrf-sacrebleu.json", import.meta.url), "utf8"),
) as { sacrebleu: string; cases: SacrebleuCase[] };

const task = (data: Record<string, unknown>): Task => ({ id: "wmt-1", data });

test("chrfScore equals sacrebleu's sentence chrF and chrF++ on every fixture pair (|Δ| < 1e-9)", () => {
  assert.equal(fixture.sacrebleu, "2.6.0");
  assert.ok(fixture.cases.length >= 200, `only ${fixture.cases.length} cases`);
  let worst = 0;
  for (const c of fixture.cases) {
    for (const [wordOrder, want] of [
      [0, c.chrf],
      [2, c.chrfpp],
    ] as const) {
      const got = chrfScore(c.hyp, c.ref, wordOrder);
      const diff = Math.abs(got - want);
      worst = Math.max(worst, diff);
      assert.ok(
        diff < 1e-9,
        `wordOrder ${wordOrder}: ${JSON.stringify(c.hyp)} vs ${JSON.stringify(c.ref)}: ours ${got}, sacrebleu ${want}`,
      );
    }
  }
  // The fixture is varied: scores spread over the range, not all 0 or 100.
  const partial = fixture.cases.filter((c) => c.chrf > 0 && c.chrf < 100).length;
  assert.ok(partial > 120, `only ${partial} partial scores`);
  assert.equal(worst, 0, "the same float operations in the same order give the same bits");
});

test("chrfScore edge cases: empty, whitespace-only, identical, code points, Python whitespace", () => {
  assert.equal(chrfScore("", ""), 0);
  assert.equal(chrfScore("", "reference"), 0);
  assert.equal(chrfScore("  \n", "  \n"), 0);
  assert.equal(chrfScore("Guten Morgen", "Guten Morgen"), 100);
  assert.equal(chrfScore("GutenMorgen", "Guten  Morgen"), 100); // whitespace is removed first
  assert.equal(chrfScore("a", "a"), 100);
  // An emoji is one character: "👍" against "👎" shares no character (they share a UTF-16 unit).
  assert.equal(chrfScore("👍", "👎"), 0);
  // U+001C is whitespace to Python's str.split (not to JavaScript's \s); U+FEFF is the reverse.
  assert.equal(chrfScore("ab\x1ccd", "abcd"), 100);
  assert.ok(chrfScore("ab\ufeffcd", "abcd") < 100);
  // Case matters (sacrebleu's default lowercase=False).
  assert.ok(chrfScore("HELLO", "hello") === 0);
});

test("extractTranslation: last fenced block, else the last Translation: cue, else the whole response", () => {
  assert.equal(extractTranslation("  Hallo Welt  \n"), "Hallo Welt");
  assert.equal(
    extractTranslation(
      "Here is the translation:\n```\nfirst\n```\nBetter:\n```text\nHallo Welt\n```\n",
    ),
    "Hallo Welt",
  );
  assert.equal(
    extractTranslation("Sure! The source is English.\nTranslation: Hallo Welt\nZweite Zeile"),
    "Hallo Welt\nZweite Zeile",
  );
  assert.equal(extractTranslation("**Translation:** Bonjour"), "Bonjour");
  assert.equal(extractTranslation("translation: a\nTRANSLATION: b"), "b");
  // "translation:" inside a sentence is not a cue.
  assert.equal(
    extractTranslation("My translation: is below? No, this is it."),
    "My translation: is below? No, this is it.",
  );
});

test("chrf grader: reward is chrF/100 of the extracted translation, with score and translation in metadata", () => {
  const grade = getGrader("chrf");
  const t = task({ source: "Hello world", reference: "Hallo Welt", targetLang: "de" });
  const exact = grade(t, "Translation: Hallo Welt");
  assert.deepEqual(exact, {
    reward: 1,
    isCorrect: true,
    signals: { chrf: 100 },
    metadata: { score: 100, translation: "Hallo Welt" },
  });
  const near = chrfGrader()(t, "Hallo, Welt!");
  assert.ok(!(near instanceof Promise));
  const expected = chrfScore("Hallo, Welt!", "Hallo Welt");
  assert.equal(near.reward, expected / 100);
  assert.ok(near.reward > 0.5 && near.reward < 1);
  assert.equal(near.isCorrect, false);
  const wrong = chrfGrader()(t, "");
  assert.ok(!(wrong instanceof Promise));
  assert.equal(wrong.reward, 0);
});

test("chrf grader: chrF++ as an option; unknown options and bad tasks are errors naming the field", () => {
  const t = task({ source: "s", reference: "the end" });
  const pp = chrfGrader({ wordOrder: 2 })(t, "the end.");
  assert.ok(!(pp instanceof Promise));
  assert.equal(pp.reward, chrfScore("the end.", "the end", 2) / 100);
  assert.notEqual(pp.reward, chrfScore("the end.", "the end", 0) / 100);
  assert.throws(() => chrfGrader({ wordOrder: 1 as 2 }), /wordOrder/);
  assert.throws(() => chrfGrader({ beta: 3 } as never), /beta/);
  assert.throws(() => chrfGrader()(task({ source: "s" }), "x"), /data\.reference/);
  assert.throws(() => chrfGrader()(task({ reference: 3 }), "x"), /data\.reference.*number/);
});
