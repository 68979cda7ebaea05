import assert from "node:assert/strict";
import { test } from "node:test";
import { punktSentences } from "../punkt.js";
import { asciiFold, pyIsLower, pyIsUpper, removePunctuation, stripPunctSpace } from "../python.js";
import { countWords, wordTokenize } from "../text.js";
import { readCsv } from "./csv.js";
import { countSyllables } from "./syllables.js";
import { countStopwords } from "./tokens.js";

// Expected values are NLTK 3.9.2's own output (sent_tokenize with the English Punkt model, then
// NLTKWordTokenizer), recorded once.

test("punktSentences: the English model's abbreviations, sentence starters and initials", () => {
  assert.deepEqual(punktSentences("Ask Dr. Who about it."), ["Ask Dr. Who about it."]);
  assert.deepEqual(punktSentences("We met at 5 p.m. Then we left."), [
    "We met at 5 p.m. Then we left.",
  ]);
  // "However" is a frequent sentence starter: it ends the sentence after an abbreviation.
  assert.deepEqual(punktSentences("I was born in the U.S. However, I moved to Canada."), [
    "I was born in the U.S.",
    "However, I moved to Canada.",
  ]);
  assert.deepEqual(punktSentences("Crutzen, P. J., & Stoermer, E. F. (2000). Next."), [
    "Crutzen, P. J., & Stoermer, E. F. (2000).",
    "Next.",
  ]);
  // "e.g" is not among the model's abbreviations.
  assert.deepEqual(punktSentences("e.g. this works. I.e. that."), [
    "e.g.",
    "this works.",
    "I.e.",
    "that.",
  ]);
});

test("punktSentences: abbreviations, initials, numbers and ?! as Punkt decides them", () => {
  assert.deepEqual(punktSentences("Dr. Smith lives in the U.S. now. He is happy!"), [
    "Dr. Smith lives in the U.S. now.",
    "He is happy!",
  ]);
  assert.deepEqual(punktSentences("Really?! Yes... maybe. Ok"), [
    "Really?!",
    "Yes... maybe.",
    "Ok",
  ]);
  // A number + period before a lower-case word is an ordinal, not a sentence end.
  assert.deepEqual(punktSentences("Version 3.5 shipped. Item 3. then more."), [
    "Version 3.5 shipped.",
    "Item 3. then more.",
  ]);
});

test("punktSentences: closing quotes realigned, no break at a bare newline, white space, empty", () => {
  assert.deepEqual(punktSentences('He said "stop." Then he left.'), [
    'He said "stop."',
    "Then he left.",
  ]);
  assert.deepEqual(punktSentences("Line one\nline two. Three."), ["Line one\nline two.", "Three."]);
  // Later sentences start at their first token; the first keeps leading white space, as in NLTK.
  assert.deepEqual(punktSentences("  Padded.   Next. "), ["  Padded.", "Next."]);
  assert.deepEqual(punktSentences(""), []);
});

test("wordTokenize: NLTK's treebank rules over Punkt sentences", () => {
  const text =
    "Good muffins cost $3.88 (roughly 3,36 euros)\nin New York.  Please buy me\ntwo of them.\nThanks.";
  assert.deepEqual(
    wordTokenize(text),
    [
      ["Good", "muffins", "cost", "$", "3.88", "(", "roughly", "3,36", "euros", ")", "in"],
      ["New", "York", ".", "Please", "buy", "me", "two", "of", "them", ".", "Thanks", "."],
    ].flat(),
  );
  assert.deepEqual(
    wordTokenize('He said "stop." Then he left.'),
    [["He", "said", "``", "stop", ".", "''", "Then", "he", "left", "."]].flat(),
  );
  assert.deepEqual(
    wordTokenize("I can't, won't; cannot."),
    [["I", "ca", "n't", ",", "wo", "n't", ";", "can", "not", "."]].flat(),
  );
});

test("countWords / countStopwords count \\w+ runs", () => {
  assert.equal(countWords("It's a well-known fact: 3.5 apples."), 9);
  // the, and, the (of 5 words); "don" from "don't" is itself a stop word, as in NLTK's list.
  assert.equal(countStopwords("The cat and the dog"), 3);
  assert.equal(countStopwords("Don't"), 2); // "don" and "t"
});

test("countSyllables follows syllapy: dictionary, compounds, rules, digits", () => {
  const expected: [string, number][] = [
    ["table", 2],
    ["the", 1],
    ["beautiful", 3],
    ["self-care", 2],
    ["actually", 4], // from the dictionary: the rules say 3
    ["rhythm", 1],
    ["2020", 0],
    ["apple.", 2],
    ["fire", 1],
  ];
  for (const [word, n] of expected) assert.equal(countSyllables(word), n, word);
});

test("readCsv follows Python's csv.reader", () => {
  assert.deepEqual(readCsv("a,b\n\nc", ","), [["a", "b"], [], ["c"]]);
  assert.deepEqual(readCsv('a,"b,""c""",d\n', ","), [["a", 'b,"c"', "d"]]);
  assert.deepEqual(readCsv(",\n", ","), [["", ""]]);
  assert.deepEqual(readCsv('x"y","q"z,w', ","), [['x"y"', "qz", "w"]]);
  assert.deepEqual(readCsv('"multi\nline",2\r\n3', ","), [["multi\nline", "2"], ["3"]]);
  assert.deepEqual(readCsv("a\tb", "\t"), [["a", "b"]]);
});

test("Python string semantics: punctuation, case predicates, ASCII folding", () => {
  assert.equal(removePunctuation("¿Qué? «ok» — fine!"), "¿Qué «ok» — fine");
  assert.equal(stripPunctSpace(' "(hello)!" '), "hello");
  assert.ok(pyIsLower("abc1") && !pyIsLower("123") && !pyIsLower("aBc"));
  assert.ok(pyIsUpper("NASA'S 2") && !pyIsUpper("NASA's") && !pyIsUpper("Nasa"));
  assert.equal(asciiFold("São Tomé, Chișinău"), "Sao Tome, Chisinau");
});
