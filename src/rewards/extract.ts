/**
 * Finding the final answer inside a model's free-form response. Shared by the math, QA and
 * multiple-choice graders, which differ in what they do with the answer, not in where they look.
 */

/**
 * Reads a brace group that opens at `text[open]` (which must be `{`). Escaped braces (`\{`, `\}`)
 * are literal characters in LaTeX, so they do not change the depth. Returns the content and the
 * index just past the closing brace, or undefined when the group never closes (a truncated answer).
 */
export function readBraceGroup(
  text: string,
  open: number,
): { content: string; end: number } | undefined {
  if (text[open] !== "{") return undefined;
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (c === "\\") {
      i++; // skip the escaped character, whatever it is
      continue;
    }
    if (c === "{") depth++;
    else if (c === "}") {
      depth--;
      if (depth === 0) return { content: text.slice(open + 1, i), end: i + 1 };
    }
  }
  return undefined;
}

/**
 * For every `{` in `text`, the index of its matching `}` (or -1 when it never closes), in one
 * pass. Looking boxes up here keeps `lastBoxed` linear even on a response of 50,000 unclosed
 * `\boxed{`, where reading each group separately would take quadratic time.
 */
function matchingBraces(text: string): Map<number, number> {
  const close = new Map<number, number>();
  const open: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "\\") {
      i++; // `\{` and `\}` are literal braces
    } else if (c === "{") {
      open.push(i);
      close.set(i, -1);
    } else if (c === "}") {
      const start = open.pop();
      if (start !== undefined) close.set(start, i);
    }
  }
  return close;
}

/** One complete `\boxed{...}` in a text: its content and where the command starts and ends. */
export interface BoxedSpan {
  content: string;
  start: number;
  end: number;
}

/**
 * Every complete `\boxed{...}` (or `\fbox{...}`) in `text`, in order: the convention of MATH
 * (Hendrycks et al.) and of most math RL prompts. Nested braces are matched, `\boxed {x}` and the
 * brace-less `\boxed 5` are accepted, a box inside a box belongs to the outer answer
 * (`\boxed{\frac{1}{\boxed{2}}}` is `\frac{1}{\boxed{2}}`), and a box that never closes (a
 * response cut off by the length limit) is skipped.
 */
export function boxedSpans(text: string): BoxedSpan[] {
  let braces: Map<number, number> | undefined;
  const spans: BoxedSpan[] = [];
  let coveredUntil = 0;
  const bare = /[^\s${}]+/y;
  for (const m of text.matchAll(/\\(?:boxed|fbox)(?![a-zA-Z])/g)) {
    if (m.index < coveredUntil) continue; // inside the previous box
    const afterName = m.index + m[0].length;
    let i = afterName;
    while (i < text.length && /\s/.test(text[i]!)) i++;
    if (text[i] === "{") {
      braces ??= matchingBraces(text);
      const end = braces.get(i) ?? -1;
      if (end >= 0) {
        spans.push({ content: text.slice(i + 1, end).trim(), start: m.index, end: end + 1 });
        coveredUntil = end + 1;
      }
      continue;
    }
    // `\boxed 5`: TeX takes one token; models mean "up to the end of the math", so stop at
    // whitespace or a closing `$`.
    bare.lastIndex = i;
    const token = i > afterName ? bare.exec(text) : null;
    if (token) {
      spans.push({ content: token[0], start: m.index, end: i + token[0].length });
      coveredUntil = i + token[0].length;
    }
  }
  return spans;
}

/** The content of the last complete box in `text` (see boxedSpans), or undefined. */
export function lastBoxed(text: string): string | undefined {
  return boxedSpans(text).at(-1)?.content;
}

/**
 * The answer after the last answer cue: `#### X` (GSM8K), `The answer is X`, `Final answer: X`,
 * `Answer: X`, `**Answer:** X`. Takes the rest of that line (or the next non-empty line when the
 * cue ends its line), then trims wrapping `$...$`, markdown bold and, with `cutSentence` (the
 * default; QA turns it off because "Dr. Seuss" is an answer), a closing sentence.
 */
export function lastAnswerLine(
  text: string,
  options: { cutSentence?: boolean } = {},
): string | undefined {
  const line = answerCueLine(text);
  if (line === undefined) return undefined;
  const answer = cleanAnswerText(line, options.cutSentence ?? true);
  return answer === "" ? undefined : answer;
}

/**
 * The line lastAnswerLine reads, before it is cleaned: the rest of the line after the last cue
 * (leading `:`, `*`, `_` and spaces dropped), or the next non-empty line. Undefined without a cue.
 */
export function answerCueLine(text: string): string | undefined {
  const cues = [...text.matchAll(/####|\banswer[\s*_]*(?:is\b|:)/gi)];
  const last = cues.at(-1);
  if (!last) return undefined;
  const after = text.slice(last.index + last[0].length);
  const lines = after.split("\n");
  const line = (lines[0] ?? "").replace(/^[\s:*_]+/, "");
  return line.trim() === "" ? (lines.slice(1).find((l) => l.trim() !== "") ?? "") : line;
}

/**
 * The content of the last `<tag>...</tag>` pair (tag names match without case), trimmed: the text
 * between the last closing tag and the opening tag nearest before it. Two linear scans rather
 * than one lazy regex, which is quadratic on a response full of unclosed tags.
 */
export function lastTagContent(text: string, tag: string): string | undefined {
  const name = tag.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const lastMatch = (re: RegExp, before: number) => {
    let last: RegExpExecArray | undefined;
    for (const m of text.matchAll(re)) {
      if (m.index + m[0].length > before) break;
      last = m;
    }
    return last;
  };
  const close = lastMatch(new RegExp(`</${name}>`, "gi"), text.length);
  if (!close) return undefined;
  const open = lastMatch(new RegExp(`<${name}>`, "gi"), close.index);
  if (!open) return undefined;
  return text.slice(open.index + open[0].length, close.index).trim();
}

/**
 * Trims what surrounds an answer on its line: markdown emphasis, an inline-math wrapper (only the
 * first `$...$` span counts: "The final answer is $5$. I hope it is correct." is Minerva's
 * format; an escaped `\$` inside it is a dollar sign), a trailing sentence after ". " and a closing full stop.
 */
export function cleanAnswerText(line: string, cutSentence = true): string {
  let s = line.trim().replace(/^[*_\s]+/, "");
  const math = /^\$\$?((?:\\\$|[^$])+)\$/.exec(s) ?? /^\\\((.+?)\\\)/.exec(s);
  if (math) return (math[1] ?? "").trim();
  const sentenceEnd = cutSentence ? s.search(/\.\s+\S/) : -1;
  if (sentenceEnd >= 0) s = s.slice(0, sentenceEnd);
  return s
    .replace(/[*_\s]+$/, "")
    .replace(/\.$/, "")
    .trim();
}
