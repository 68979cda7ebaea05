/**
 * Agreement of our IFBench checkers (src/rewards/instructions/ifbench/) with the reference
 * (allenai/IFBench, run offline by reference.py beside this file):
 * 1. every instruction of IFBench_test, with the kwargs of its first row, on every response of
 *    IFBench's data/sample_output.jsonl (58 × 294 checks);
 * 2. each IFBench_test row's own instructions on its own sample response (the benchmark itself);
 * 3. NLTK's sent_tokenize / word_tokenize against ours on those responses and on seeded random
 *    texts built from abbreviations, initials, numbers, quotes and line breaks.
 * Not part of `npm run bench` (it needs the reference and NLTK's model files):
 *
 *   node --import tsx bench/ifbench/agreement.ts --ifbench DIR --python PY \
 *     --punkt-wheel WHL --tagger-zip ZIP --stopwords-zip ZIP
 *
 * PY needs nltk==3.9.2 (IFBench's lock file), emoji, syllapy, absl-py, immutabledict, langdetect.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { mulberry32 } from "../../src/random.js";
import { IFBENCH_REGISTRY } from "../../src/rewards/instructions/ifbench/index.js";
import { punktSentences } from "../../src/rewards/instructions/punkt.js";
import { wordTokenize } from "../../src/rewards/instructions/text.js";

const { values: opts } = parseArgs({
  options: {
    ifbench: { type: "string" },
    python: { type: "string", default: "python3" },
    "punkt-wheel": { type: "string" },
    "tagger-zip": { type: "string" },
    "stopwords-zip": { type: "string" },
    "random-texts": { type: "string", default: "4000" },
  },
});
for (const key of ["ifbench", "punkt-wheel", "tagger-zip", "stopwords-zip"] as const) {
  if (!opts[key])
    throw new Error(`--${key} is required (see the header of bench/ifbench/agreement.ts)`);
}

type Args = Record<string, unknown>;
interface Pair {
  id: string;
  args: Args;
  response: string;
}

function reference<T>(mode: string, input: unknown): T {
  const script = join(import.meta.dirname, "reference.py");
  const flags = ["--ifbench", "--punkt-wheel", "--tagger-zip", "--stopwords-zip"].flatMap((f) => [
    f,
    opts[f.slice(2) as "ifbench"]!,
  ]);
  const out = execFileSync(opts.python!, [script, mode, ...flags], {
    input: JSON.stringify(input),
    maxBuffer: 1 << 30,
    stdio: ["pipe", "pipe", "ignore"],
  });
  return JSON.parse(out.toString("utf8")) as T;
}

const jsonl = (path: string) =>
  readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l));
const dropNulls = (kw: Args) =>
  Object.fromEntries(Object.entries(kw).filter(([, v]) => v !== null));

const rows = jsonl(join(opts.ifbench!, "data/IFBench_test.jsonl")) as {
  prompt: string;
  instruction_id_list: string[];
  kwargs: Args[];
}[];
const responses = new Map<string, string>();
for (const o of jsonl(join(opts.ifbench!, "data/sample_output.jsonl")))
  responses.set(o.prompt, o.response);

function compare(title: string, pairs: Pair[]): void {
  const ref = reference<(boolean | string)[]>("pairs", pairs);
  const byId = new Map<string, { n: number; agree: number; refErrors: number }>();
  pairs.forEach((p, i) => {
    const s = byId.get(p.id) ?? { n: 0, agree: 0, refErrors: 0 };
    byId.set(p.id, s);
    const r = ref[i];
    if (typeof r === "string") s.refErrors++;
    else {
      s.n++;
      if (IFBENCH_REGISTRY.get(p.id)!.check(p.response, p.args, "") === r) s.agree++;
    }
  });
  const all = [...byId.values()];
  const agree = all.reduce((a, s) => a + s.agree, 0);
  const n = all.reduce((a, s) => a + s.n, 0);
  console.log(`\n${title}: ${agree}/${n} checks agree (${((100 * agree) / n).toFixed(2)}%)`);
  for (const [id, s] of [...byId].sort()) {
    if (s.agree < s.n || s.refErrors > 0) {
      console.log(
        `  ${id}: ${s.agree}/${s.n}${s.refErrors ? `, reference crashed ${s.refErrors}×` : ""}`,
      );
    }
  }
}

const firstArgs = new Map<string, Args>();
for (const row of rows) {
  row.instruction_id_list.forEach((id, k) => {
    if (!firstArgs.has(id)) firstArgs.set(id, dropNulls(row.kwargs[k]!));
  });
}
const sample = [...responses.values()];
compare(
  `every instruction × every sample response (${firstArgs.size} × ${sample.length})`,
  [...firstArgs].flatMap(([id, args]) => sample.map((response) => ({ id, args, response }))),
);
compare(
  "IFBench_test rows on their own sample responses",
  rows.flatMap((row) => {
    const response = responses.get(row.prompt) ?? responses.get(row.prompt.trim());
    if (response === undefined) return [];
    return row.instruction_id_list.map((id, k) => ({
      id,
      args: dropNulls(row.kwargs[k]!),
      response,
    }));
  }),
);

/** Texts that exercise Punkt's decisions: abbreviations, initials, numbers, quotes, line breaks. */
function randomTexts(n: number): string[] {
  const vocab = (
    "Dr. Mr. the The U.S. e.g. i.e. etc. J. A. 3. 3.5 No. He he said \"Hi.\" 'ok.' (see p.m.) ... " +
    "Yes... what?! Why? wow! It it However, however 1. a. b) -- “Quote.” [ref.] Inc. vs. é. " +
    "42. I. II. iii. * **Bold.** - Sales sales Jan. x y. Q: 3:30 a.m. U.N. Ph.D. hello. World! ! ? ."
  ).split(" ");
  const rand = mulberry32(7);
  const seps = [" ", " ", " ", "", "\n", "\n\n"];
  return Array.from({ length: n }, () => {
    const len = 1 + Math.floor(rand() * 25);
    let s = "";
    for (let i = 0; i < len; i++) {
      s += vocab[Math.floor(rand() * vocab.length)]! + seps[Math.floor(rand() * seps.length)]!;
    }
    return s;
  });
}

const texts = [...sample, ...randomTexts(Number(opts["random-texts"]))];
const tokenized = reference<{ sentences: string[]; words: string[] }[]>("tokenize", texts);
const same = (a: string[], b: string[]) => a.length === b.length && a.every((x, i) => x === b[i]);
const sentencesAgree = texts.filter((t, i) =>
  same(punktSentences(t), tokenized[i]!.sentences),
).length;
const wordsAgree = texts.filter((t, i) => same(wordTokenize(t), tokenized[i]!.words)).length;
console.log(`\nsent_tokenize: ${sentencesAgree}/${texts.length} texts split identically`);
console.log(`word_tokenize: ${wordsAgree}/${texts.length} texts tokenized identically`);
