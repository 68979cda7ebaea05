/**
 * What a code task is and which program a response holds: the `task.data` fields the code grader
 * reads (CodeTaskSchema; rewards/code.ts says what each kind of test means), the program
 * extraction (the last fenced code block, else the whole response), and TypeScript's transpiling
 * to JavaScript on the host (esbuild's `transform`: it parses and prints, it runs nothing).
 */
import { type Message, transform } from "esbuild";
import { z } from "zod";
import type { Task } from "../types/index.js";
import { OUTPUT_COMPARES, parsePyJson } from "./code-compare.js";

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const CaseSchema = z.strictObject({ input: z.string(), output: z.string() });

export const CodeTestsSchema = z.discriminatedUnion("kind", [
  z.strictObject({
    kind: z.literal("check"),
    test: z.string().min(1),
    entryPoint: z.string().regex(IDENTIFIER, "must be an identifier"),
  }),
  z.strictObject({
    kind: z.literal("asserts"),
    asserts: z.array(z.string().min(1)).min(1),
    setup: z.string().optional(),
  }),
  z.strictObject({
    kind: z.literal("call"),
    fnName: z.string().regex(IDENTIFIER, "must be an identifier"),
    cases: z.array(CaseSchema).min(1),
  }),
  z.strictObject({
    kind: z.literal("stdio"),
    cases: z.array(CaseSchema).min(1),
    compare: z.enum(OUTPUT_COMPARES as [string, ...string[]]).default("whitespace"),
  }),
]);
export type CodeTests = z.infer<typeof CodeTestsSchema>;

export const CodeLanguageSchema = z.enum(["python", "javascript", "typescript"]);
export type CodeLanguage = z.infer<typeof CodeLanguageSchema>;

/** The fields of `task.data` the grader reads (others are ignored). */
export const CodeTaskSchema = z.object({
  language: CodeLanguageSchema.default("python"),
  prelude: z.string().optional(),
  tests: CodeTestsSchema,
});
export type CodeTask = z.infer<typeof CodeTaskSchema>;

export type CodeTestOutcome = "pass" | "fail" | "error" | "timeout" | "skipped";
export interface CodeTestResult {
  outcome: CodeTestOutcome;
  reason?: string;
}

export interface ExtractedProgram {
  code: string;
  /** The fence's language tag ("" when none); undefined when the whole response was taken. */
  fence?: string;
}

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})([^`]*)$/;

/** The last fenced code block of `response` (CommonMark fences), else the whole response. */
export function extractProgram(response: string): ExtractedProgram {
  const lines = response.split(/\r?\n/);
  let last: ExtractedProgram | undefined;
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE_OPEN.exec(lines[i]!);
    if (!open) continue;
    const marker = open[1]!;
    const indent = lines[i]!.length - lines[i]!.trimStart().length;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const line = lines[j]!;
      const close = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(line);
      if (close && close[1]![0] === marker[0] && close[1]!.length >= marker.length) break;
      body.push(line.replace(new RegExp(`^ {0,${indent}}`), ""));
    }
    last = { code: body.join("\n"), fence: open[2]!.trim().split(/\s+/)[0] ?? "" };
    i = j;
  }
  return last ?? { code: response };
}

/** The task's code fields, checked; a task that lacks them is an error naming it. */
export function readCodeTask(task: Task): CodeTask {
  const parsed = CodeTaskSchema.safeParse(task.data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(
      `task ${task.id}: data.${issue.path.join(".") || "(root)"} ${issue.message} (the code grader needs data.tests; see rewards/code.ts)`,
    );
  }
  const { tests } = parsed.data;
  if (tests.kind === "call") {
    for (const [i, c] of tests.cases.entries()) {
      const texts = [
        ...c.input.split("\n").map((t, j) => [`input line ${j + 1}`, t]),
        ["output", c.output],
      ];
      for (const [what, text] of texts) {
        try {
          parsePyJson(text!);
        } catch (error) {
          throw new Error(
            `task ${task.id}: data.tests.cases[${i}] ${what} is not JSON (${(error as Error).message}); a call test's input lines and output are JSON values`,
          );
        }
      }
    }
  }
  return parsed.data;
}

/** esbuild's first message with its place (line from 1; column from 1, as Node's stack traces). */
function esbuildMessage(error: unknown): string | undefined {
  const first = (error as { errors?: Message[] } | null)?.errors?.[0];
  if (first === undefined) return undefined;
  const at = first.location;
  return at ? `${first.text} (at ${at.file}:${at.line}:${at.column + 1})` : first.text;
}

/**
 * TypeScript to a JavaScript script: every TypeScript syntax (enums and namespaces too), types
 * erased and never checked, no module conversion (an `export` stays the SyntaxError it is in
 * JavaScript). A syntax error comes back as esbuild's first message; anything else is thrown.
 */
export async function transpileTypeScript(
  source: string,
  name: string,
): Promise<{ code: string } | { error: string }> {
  try {
    const { code } = await transform(source, { loader: "ts", target: "node20", sourcefile: name });
    return { code };
  } catch (error) {
    const message = esbuildMessage(error);
    if (message === undefined) throw error;
    return { error: message };
  }
}

/**
 * A TypeScript task's own test code (`check` code, asserts, setup) as JavaScript; call inputs and
 * stdio cases are data and stay as they are. Test code that does not transpile is an error naming
 * the task.
 */
export async function transpileTests(task: Task, tests: CodeTests): Promise<CodeTests> {
  const js = async (source: string, field: string) => {
    const out = await transpileTypeScript(source, `data.tests.${field}`);
    if ("error" in out) {
      throw new Error(`task ${task.id}: data.tests.${field} is not valid TypeScript: ${out.error}`);
    }
    return out.code;
  };
  switch (tests.kind) {
    case "check":
      return { ...tests, test: await js(tests.test, "test") };
    case "asserts": {
      const asserts = await Promise.all(tests.asserts.map((a, i) => js(a, `asserts[${i}]`)));
      const setup = tests.setup === undefined ? {} : { setup: await js(tests.setup, "setup") };
      return { ...tests, asserts, ...setup };
    }
    default:
      return tests;
  }
}
