/**
 * Expected values come from the Python reference (IFEval's instructions_util with nltk 3.9.1 and
 * NLTK's English Punkt parameters), run on these strings.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { punktSentences } from "./punkt.js";
import { pyIsLower, pyIsUpper, pySplit, pyStrip } from "./python.js";
import { countSentences, countWords, wordTokenize } from "./text.js";

test("countSentences: Punkt's abbreviations, initials, numbers, ellipses and quotes", () => {
  const cases: [string, number][] = [
    ["Dr. Smith arrived at 5 p.m. yesterday. He was tired.", 2],
    ["1. Apples are red.\n2. bananas are yellow.", 3],
    ["J. Bach wrote it. Then he left.", 2],
    ["Wait... what happened? Nothing!", 2],
    ['She said "Hello." Then she left.', 2],
    ["(See the note.) Next one.", 2],
    ["He lives in the U.S. now. It is big.", 2],
    ["Mr. and Mrs. Jones visited St. Louis.", 1],
    ["It costs $3.88 per pound. Cheap!", 2],
    ["i think so. maybe not.", 2],
    ["No ending punctuation here", 1],
    ["", 0],
  ];
  for (const [text, n] of cases) assert.equal(countSentences(text), n, JSON.stringify(text));
});

test("wordTokenize: NLTK's word_tokenize (contractions, quotes, final periods)", () => {
  const cases: [string, string[]][] = [
    ["I DON'T KNOW. WE CANNOT.", ["I", "DO", "N'T", "KNOW", ".", "WE", "CAN", "NOT", "."]],
    ["GONNA DO IT, DON'T WORRY.", ["GON", "NA", "DO", "IT", ",", "DO", "N'T", "WORRY", "."]],
    [
      "He said \"hi\" (twice)... then 'left'.",
      ["He", "said", "``", "hi", "''", "(", "twice", ")", "...", "then", "'left", "'", "."],
    ],
    [
      "It's 10 a.m. in N.Y. right now.",
      ["It", "'s", "10", "a.m.", "in", "N.Y.", "right", "now", "."],
    ],
    ["Hello -- world; ok?", ["Hello", "--", "world", ";", "ok", "?"]],
    ["l'amour d'été", ["l'amour", "d'été"]],
  ];
  for (const [text, tokens] of cases) assert.deepEqual(wordTokenize(text), tokens, text);
});

// NLTK 3.9.2's sent_tokenize / word_tokenize output, on texts where earlier ports parted from it:
// IFBench's former copy of Punkt and word_tokenize (JavaScript's white space, digits and \b) on all
// of them; this one, before it took Python's \s, on U+0085, U+FEFF, U+001C and "1,\u0663".
test("Punkt and word_tokenize follow Python's white space, digits and \\w, not JavaScript's", () => {
  const cases: [string, string[], string[]][] = [
    [
      "It was 5 p.m.\u00a0Why? Nobody knew.", // NBSP is not string.whitespace
      ["It was 5 p.m.\u00a0Why?", "Nobody knew."],
      ["It", "was", "5", "p.m.", "Why", "?", "Nobody", "knew", "."],
    ],
    [
      "See item \u0663. then stop. Done.", // an Arabic-Indic digit is a number
      ["See item \u0663. then stop.", "Done."],
      ["See", "item", "\u0663.", "then", "stop", ".", "Done", "."],
    ],
    [
      "He \u00e9cannot go. She cannot.", // no Python \b between é and c
      ["He \u00e9cannot go.", "She cannot."],
      ["He", "\u00e9cannot", "go", ".", "She", "can", "not", "."],
    ],
    [
      "One.\u0085Two. Three.", // U+0085 is white space to Python, not to JavaScript
      ["One.\u0085Two.", "Three."],
      ["One.", "Two", ".", "Three", "."],
    ],
    [
      "One.\ufeffTwo. Three.", // U+FEFF is white space to JavaScript, not to Python
      ["One.\ufeffTwo.", "Three."],
      ["One.\ufeffTwo", ".", "Three", "."],
    ],
    ["The end.\u001cNext one.", ["The end.", "Next one."], ["The", "end", ".", "Next", "one", "."]],
    [
      "Scores: 1,\u0663 and 2,3.", // no split before a Unicode digit
      ["Scores: 1,\u0663 and 2,3."],
      ["Scores", ":", "1,\u0663", "and", "2,3", "."],
    ],
  ];
  for (const [text, sentences, words] of cases) {
    assert.deepEqual(punktSentences(text), sentences, JSON.stringify(text));
    assert.deepEqual(wordTokenize(text), words, JSON.stringify(text));
  }
});

test("countWords: runs of Python's \\w (combining marks split words, as in the reference)", () => {
  assert.equal(countWords("नमस्ते दुनिया"), 5);
  assert.equal(countWords("snake_case and don't"), 4);
  assert.equal(countWords("3.14 is pi"), 4);
  assert.equal(countWords("café au lait"), 3);
  assert.equal(countWords(""), 0);
});

test("Python string predicates: isupper/islower need a cased letter; strip/split white space", () => {
  assert.ok(pyIsUpper("HELLO, WORLD 123!"));
  assert.ok(!pyIsUpper("123 !"));
  assert.ok(!pyIsUpper("HELLo"));
  assert.ok(pyIsLower("hello 123"));
  assert.ok(!pyIsLower("ß and Straße"));
  assert.ok(!pyIsLower("..."));
  assert.equal(pyStrip("\x1c\x85 a b \u3000"), "a b");
  assert.equal(pyStrip("\ufeffa"), "\ufeffa");
  assert.deepEqual(pySplit("  a \n\t b  "), ["a", "b"]);
  assert.deepEqual(pySplit("   "), []);
  assert.deepEqual(pySplit("a\ufeffb c\x85d"), ["a\ufeffb", "c", "d"]);
  // Case is the Unicode property, not whether a case mapping exists.
  assert.ok(pyIsUpper("\u{1d400}BC"));
  assert.ok(pyIsLower("\u00aab"));
  assert.ok(!pyIsUpper("\u01c5") && !pyIsLower("\u01c5"));
});
