/**
 * Sentence splitting as IFBench does it: `nltk.sent_tokenize(text)`, i.e. NLTK's Punkt sentence
 * tokenizer (Kiss & Strunk 2006) with its pre-trained English parameters (punkt-english.ts). Ported
 * step for step from nltk/tokenize/punkt.py of NLTK 3.9.2, the version IFBench's lock file pins
 * (NLTK 3.10, which a plain `pip install ifbench` may bring, also counts curly quotes and
 * guillemets as closing punctuation; 3.9.2 does not):
 * `PunktSentenceTokenizer.span_tokenize`, `_match_potential_end_contexts`, `_slices_from_text`,
 * `_realign_boundaries`, `text_contains_sentbreak`, `_first_pass_annotation`,
 * `_second_pass_annotation`, `_ortho_heuristic`; PunktLanguageVars for the regular expressions.
 *
 * In short: a candidate is a `.`, `?` or `!` followed by white space and a token, or by closing or
 * other punctuation. `?` and `!` always end a sentence; a word + period does unless the word is a
 * known abbreviation, and the second pass revisits abbreviations, ellipses, initials and numbers
 * with the next word's case and what the model saw of that word (collocations, frequent sentence
 * starters, orthographic context). A bare newline never ends a sentence; closing quotes and
 * brackets after a sentence end belong to that sentence; a sentence starts at its first token and
 * the text's trailing white space is dropped.
 *
 * Python's `str.isupper()`/`islower()` on a token's first character and its `[^\W\d]` ("a letter")
 * are taken as Unicode letters and case here, as they are there.
 */
import { ABBREV_TYPES, COLLOCATIONS, ORTHO_CONTEXT, SENT_STARTERS } from "./punkt-english.js";

const ABBREVIATIONS = new Set(ABBREV_TYPES.split("|"));
const STARTERS = new Set(SENT_STARTERS.split(" "));
const COLLOCATION_PAIRS = new Set(COLLOCATIONS.split("|"));
const ORTHO: ReadonlyMap<string, number> = new Map(
  Object.entries(ORTHO_CONTEXT).flatMap(([flag, words]) =>
    words.split(" ").map((w) => [w, Number(flag)] as const),
  ),
);
// Orthographic flags: seen upper-case at a sentence beginning, in the middle, at an unknown
// position; likewise lower-case.
const ORTHO_BEG_UC = 1 << 1;
const ORTHO_MID_UC = 1 << 2;
const ORTHO_UNK_UC = 1 << 3;
const ORTHO_BEG_LC = 1 << 4;
const ORTHO_MID_LC = 1 << 5;
const ORTHO_UNK_LC = 1 << 6;
const ORTHO_UC = ORTHO_BEG_UC | ORTHO_MID_UC | ORTHO_UNK_UC;
const ORTHO_LC = ORTHO_BEG_LC | ORTHO_MID_LC | ORTHO_UNK_LC;

// PunktLanguageVars: characters that cannot be inside a word, multi-character punctuation, and
// characters that cannot start one.
const NON_WORD = String.raw`(?:[)";}\]*:@'({[?!])`;
const MULTI_CHAR = String.raw`(?:-{2,}|\.{2,}|(?:\.\s){2,}\.)`;
const WORD_START = String.raw`[^("\x60{\[:;&#*@)}\]\-,]`;
const WORD_RE = new RegExp(
  `${MULTI_CHAR}|(?=${WORD_START})\\S+?(?=\\s|$|${NON_WORD}|${MULTI_CHAR}|,(?=$|\\s|${NON_WORD}|${MULTI_CHAR}))|\\S`,
  "gu",
);
/** A possible sentence end and what follows it: other punctuation, or white space and a token. */
const PERIOD_CONTEXT_RE = new RegExp(`[.?!](?=(${NON_WORD}|\\s+(\\S+)))`, "gdu");
const BOUNDARY_REALIGNMENT_RE = /["')\]}]+?(?:\s+|(?=--)|$)/my;

const NUMERIC_RE = /^-?[.,]?\d[\d,.-]*\.?$/;
const INITIAL_RE = /^[\p{L}\p{Nl}\p{No}_]\.$/u;
const SENTENCE_INTERNAL_PUNCT = new Set([";", ":", ",", ".", "!", "?"]);

interface Token {
  tok: string;
  type: string;
  periodFinal: boolean;
  sentbreak: boolean;
  abbr: boolean;
  ellipsis: boolean;
}

function makeToken(tok: string): Token {
  const type = NUMERIC_RE.test(tok.toLowerCase()) ? "##number##" : tok.toLowerCase();
  return {
    tok,
    type,
    periodFinal: tok.endsWith("."),
    sentbreak: false,
    abbr: false,
    ellipsis: false,
  };
}

const typeNoPeriod = (t: Token) =>
  t.type.length > 1 && t.type.endsWith(".") ? t.type.slice(0, -1) : t.type;
const typeNoSentperiod = (t: Token) => (t.sentbreak ? typeNoPeriod(t) : t.type);
const isLowerChar = (c: string) => c !== c.toUpperCase() && c === c.toLowerCase();
const isUpperChar = (c: string) => c !== c.toLowerCase() && c === c.toUpperCase();
const firstChar = (t: Token) => String.fromCodePoint(t.tok.codePointAt(0)!);

/** Punkt's word segmentation of a text, line by line (`_tokenize_words`). */
function punktWords(text: string): Token[] {
  const out: Token[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    for (const m of line.matchAll(WORD_RE)) out.push(makeToken(m[0]));
  }
  return out;
}

/** `_first_pass_annotation`: ?/!/. alone end a sentence, ".." is an ellipsis, word + period ends
 * one unless the word (or its last hyphen part) is a known abbreviation. */
function firstPass(t: Token): void {
  if (t.tok === "." || t.tok === "?" || t.tok === "!") t.sentbreak = true;
  else if (/^\.\.+$/.test(t.tok)) t.ellipsis = true;
  else if (t.periodFinal && !t.tok.endsWith("..")) {
    const stem = t.tok.slice(0, -1).toLowerCase();
    if (ABBREVIATIONS.has(stem) || ABBREVIATIONS.has(stem.split("-").at(-1)!)) t.abbr = true;
    else t.sentbreak = true;
  }
}

/** `_ortho_heuristic`: does `t` start a sentence, by what the model saw of its case. */
function orthoHeuristic(t: Token): boolean | "unknown" {
  if (SENTENCE_INTERNAL_PUNCT.has(t.tok)) return false;
  const context = ORTHO.get(typeNoSentperiod(t)) ?? 0;
  const c = firstChar(t);
  if (isUpperChar(c) && context & ORTHO_LC && !(context & ORTHO_MID_UC)) return true;
  if (isLowerChar(c) && (context & ORTHO_UC || !(context & ORTHO_BEG_LC))) return false;
  return "unknown";
}

/** `_second_pass_annotation`: revisit a period-final token in the light of the next one. */
function secondPass(t: Token, next: Token | undefined): void {
  if (!next || !t.periodFinal) return;
  const type = typeNoPeriod(t);
  const nextType = typeNoSentperiod(next);
  const initial = INITIAL_RE.test(t.tok);
  if (COLLOCATION_PAIRS.has(`${type} ${nextType}`)) {
    t.sentbreak = false;
    t.abbr = true;
    return;
  }
  if ((t.abbr || t.ellipsis) && !initial) {
    if (orthoHeuristic(next) === true) {
      t.sentbreak = true;
      return;
    }
    if (isUpperChar(firstChar(next)) && STARTERS.has(nextType)) {
      t.sentbreak = true;
      return;
    }
  }
  if (initial || type === "##number##") {
    const starter = orthoHeuristic(next);
    const alwaysUpper = !((ORTHO.get(nextType) ?? 0) & ORTHO_LC);
    if (
      starter === false ||
      (starter === "unknown" && initial && isUpperChar(firstChar(next)) && alwaysUpper)
    ) {
      t.sentbreak = false;
      t.abbr = true;
    }
  }
}

/** `text_contains_sentbreak`: a token before the last one is annotated as a sentence break. */
function containsSentbreak(context: string): boolean {
  const tokens = punktWords(context);
  for (const t of tokens) firstPass(t);
  for (let i = 0; i < tokens.length; i++) secondPass(tokens[i]!, tokens[i + 1]);
  return tokens.slice(0, -1).some((t) => t.sentbreak);
}

interface Candidate {
  end: number;
  nextStart: number | undefined;
  context: string;
}

/** `_match_potential_end_contexts`: each candidate with the word before it and what follows. */
function candidates(text: string): Candidate[] {
  const out: Candidate[] = [];
  let prev: { start: number; stop: number } = { start: 0, stop: 0 };
  let prevMatch: RegExpExecArray | undefined;
  const emit = (m: RegExpExecArray, slice: { start: number; stop: number }) =>
    out.push({
      end: m.index + 1,
      nextStart: m.indices?.[2]?.[0],
      context: text.slice(slice.start, slice.stop) + m[0] + m[1],
    });
  for (const m of text.matchAll(PERIOD_CONTEXT_RE)) {
    const before = text.slice(prev.stop, m.index);
    let ws = before.search(/\s(?=\S*$)/);
    if (ws <= 0) ws = 0;
    const start = ws ? ws + prev.stop + 1 : prev.start;
    const word = { start, stop: m.index };
    if (prevMatch && prev.stop <= word.start) emit(prevMatch, prev);
    prevMatch = m;
    prev = word;
  }
  if (prevMatch) emit(prevMatch, prev);
  return out;
}

/** `nltk.sent_tokenize(text)` with the parameters described above. */
export function sentTokenize(text: string): string[] {
  const slices: [number, number][] = [];
  let lastBreak = 0;
  for (const c of candidates(text)) {
    if (!containsSentbreak(c.context)) continue;
    slices.push([lastBreak, c.end]);
    lastBreak = c.nextStart ?? c.end;
  }
  slices.push([lastBreak, text.trimEnd().length]);
  return realign(text, slices).map(([s, e]) => text.slice(s, e));
}

/** `_realign_boundaries`: closing quotes/brackets after a sentence end belong to that sentence. */
function realign(text: string, slices: [number, number][]): [number, number][] {
  const out: [number, number][] = [];
  let shift = 0;
  slices.forEach(([start, stop], i) => {
    const s1: [number, number] = [start + shift, stop];
    const s2 = slices[i + 1];
    if (!s2) {
      if (s1[1] > s1[0]) out.push(s1);
      return;
    }
    BOUNDARY_REALIGNMENT_RE.lastIndex = 0;
    const m = BOUNDARY_REALIGNMENT_RE.exec(text.slice(s2[0], s2[1]));
    if (m) {
      out.push([s1[0], s2[0] + m[0].trimEnd().length]);
      shift = m[0].length;
    } else {
      shift = 0;
      if (s1[1] > s1[0]) out.push(s1);
    }
  });
  return out;
}
