/**
 * "The response must start with a verb" (IFBench `StartWithVerbChecker`): the reference tags
 * `nltk.word_tokenize(response)` with NLTK's averaged-perceptron tagger and asks whether the first
 * token's Penn tag contains "VB". That tagger is a 6 MB trained model NLTK downloads at run time; we
 * ask compromise (a rule-and-lexicon tagger) instead: the first NLTK token must be a word, and
 * compromise must tag the first term of the text, when it is that word, as a Verb.
 *
 * Where they differ: the perceptron often tags a sentence-initial capitalised imperative as a
 * proper noun ("Discover new places!" → NNP, "Embrace change." → NNP) or a noun ("Start by…" → NN),
 * and compromise tags it a verb; NLTK tags a leading gerund VBG ("Running is fun.") where compromise
 * sees a noun; compromise also reads a capitalised label ("Subject:", "Question:") as an
 * imperative. On the 294 responses of IFBench's sample output (data/sample_output.jsonl) the two
 * agree on 274 (93%); on the 6 prompts of IFBench_test with this instruction, on 3 (the other 3
 * start with an imperative NLTK tags NNP: "Conceive…", "Understand…", "Build…").
 */
import nlp from "compromise";
import { punktSentences } from "../punkt.js";
import { wordTokenize } from "../text.js";

interface Term {
  text: string;
  tags: string[];
}

/**
 * How much of the first sentence compromise tags: its time grows faster than the text (50 s for a
 * 100,000-character sentence), and the first term's tag depends on its neighbours, not on words
 * 300 characters on. Cut at white space; the same verdicts on IFBench's 294 sample outputs and
 * their loose variants as tagging the whole sentence.
 */
const TAGGED_CHARS = 300;

/** The first TAGGED_CHARS of `sentence`, cut back to the last white space when there is one. */
function taggedPrefix(sentence: string): string {
  if (sentence.length <= TAGGED_CHARS) return sentence;
  const head = sentence.slice(0, TAGGED_CHARS);
  const cut = head.search(/\s\S*$/);
  return cut > 0 ? head.slice(0, cut) : head;
}

/**
 * True when the response's first NLTK token is a word and compromise, tagging the first sentence
 * (its first TAGGED_CHARS), tags the term that starts with it as a verb other than a modal (Penn's
 * MD, which has no "VB").
 */
export function startsWithVerb(response: string): boolean {
  const sentence = punktSentences(response)[0];
  const tagged = sentence === undefined ? undefined : taggedPrefix(sentence);
  const first = tagged === undefined ? undefined : wordTokenize(tagged)[0];
  if (tagged === undefined || first === undefined || !/\p{L}/u.test(first)) return false;
  const doc = nlp(tagged)
    .terms()
    .json({ terms: { tags: true, text: true } }) as {
    terms?: Term[];
  }[];
  const term = doc[0]?.terms?.[0];
  if (term === undefined) return false;
  return (
    term.text.toLowerCase().startsWith(first.toLowerCase()) &&
    term.tags.includes("Verb") &&
    !term.tags.includes("Modal")
  );
}
