/**
 * Sentence splitting as IFBench does it: `nltk.sent_tokenize(text)`, i.e. NLTK's Punkt sentence
 * tokenizer (Kiss & Strunk 2006) with its pre-trained English parameters
 * (nltk/tokenize/punkt.py: `PunktSentenceTokenizer.span_tokenize`, `_match_potential_end_contexts`,
 * `_slices_from_text`, `_realign_boundaries`, `_first_pass_annotation`,
 * `_second_pass_annotation`, `_ortho_heuristic`; PunktLanguageVars for the regular expressions).
 *
 * The algorithm is ported step for step. The English parameters are not: they are a trained model
 * (nltk_data's punkt_tab/english: ~150 abbreviations, collocations, frequent sentence starters and
 * an orthographic table of ~20,000 words) that NLTK downloads at run time and that cannot be had
 * here. We run Punkt with `ABBREVIATIONS` below and empty collocations, sentence starters and
 * orthographic context. Where that differs from the trained model:
 * - an abbreviation not in our list ends a sentence (as in Punkt for any unknown word + period);
 * - after a known abbreviation or an ellipsis, the trained model may still break before a
 *   capitalised word it knows as a sentence starter ("etc. The"); we never break there;
 * - after an initial ("J.") or a number ("3."), a lower-case next word joins the sentences in both,
 *   a capitalised one is decided by the orthographic table in the trained model; we keep an initial
 *   joined and a number split.
 * Everything else (where candidates are, `?`/`!` always breaking, no break at a bare newline,
 * closing quotes and brackets realigned onto the sentence they close, a sentence starting at its
 * first token and the text's trailing white space dropped) is the reference's.
 */

/** Common English abbreviations that Punkt's English model knows (lower case, final period off). */
const ABBREVIATIONS = new Set([
  "mr",
  "mrs",
  "ms",
  "dr",
  "prof",
  "st",
  "jr",
  "sr",
  "inc",
  "ltd",
  "co",
  "corp",
  "vs",
  "e.g",
  "i.e",
  "u.s",
  "u.k",
  "jan",
  "feb",
  "aug",
  "sept",
  "oct",
  "nov",
  "dec",
]);

// PunktLanguageVars: characters that cannot be inside a word, multi-character punctuation, and
// characters that cannot start one.
const NON_WORD = String.raw`(?:[)";}\]*:@'({[\u2018\u2019\u201c\u201d\xab\xbb?!])`;
const MULTI_CHAR = String.raw`(?:-{2,}|\.{2,}|(?:\.\s){2,}\.)`;
const WORD_START = String.raw`[^("\x60{\[:;&#*@)}\]\-,]`;
const WORD_RE = new RegExp(
  `${MULTI_CHAR}|(?=${WORD_START})\\S+?(?=\\s|$|${NON_WORD}|${MULTI_CHAR}|,(?=$|\\s|${NON_WORD}|${MULTI_CHAR}))|\\S`,
  "gu",
);
/** A possible sentence end and what follows it: other punctuation, or white space and a token. */
const PERIOD_CONTEXT_RE = new RegExp(`[.?!](?=(${NON_WORD}|\\s+(\\S+)))`, "gdu");
const BOUNDARY_REALIGNMENT_RE = /["')\]}\u2018\u2019\u201c\u201d\xab\xbb]+?(?:\s+|(?=--)|$)/my;

const NUMERIC_RE = /^-?[.,]?\d[\d,.-]*\.?$/;
const INITIAL_RE = /^[\p{L}\p{M}_]\.$/u;
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
const isLowerChar = (c: string) => c !== c.toUpperCase() && c === c.toLowerCase();
const isUpperChar = (c: string) => c !== c.toLowerCase() && c === c.toUpperCase();

/** Punkt's word segmentation of a text, line by line (`_tokenize_words`). */
function punktWords(text: string): Token[] {
  const out: Token[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    for (const m of line.matchAll(WORD_RE)) out.push(makeToken(m[0]));
  }
  return out;
}

function firstPass(t: Token): void {
  if (t.tok === "." || t.tok === "?" || t.tok === "!") t.sentbreak = true;
  else if (/^\.\.+$/.test(t.tok)) t.ellipsis = true;
  else if (t.periodFinal && !t.tok.endsWith("..")) {
    const stem = t.tok.slice(0, -1).toLowerCase();
    if (ABBREVIATIONS.has(stem) || ABBREVIATIONS.has(stem.split("-").at(-1)!)) t.abbr = true;
    else t.sentbreak = true;
  }
}

/** `_ortho_heuristic` with an empty orthographic table: true never, false or "unknown". */
function orthoHeuristic(t: Token): false | "unknown" {
  if (SENTENCE_INTERNAL_PUNCT.has(t.tok)) return false;
  if (isLowerChar(t.tok[0]!)) return false;
  return "unknown";
}

/** `_second_pass_annotation` for initials and ordinals (the only rule left without trained data). */
function secondPass(t: Token, next: Token | undefined): void {
  if (!next || !t.periodFinal) return;
  const initial = INITIAL_RE.test(t.tok);
  if (!initial && typeNoPeriod(t) !== "##number##") return;
  const starter = orthoHeuristic(next);
  if (starter === false || (initial && isUpperChar(next.tok[0]!))) {
    t.sentbreak = false;
    t.abbr = true;
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
