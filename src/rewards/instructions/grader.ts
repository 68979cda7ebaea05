/**
 * The grader every verifiable-instruction benchmark shares (IFEval, IFBench): the task lists
 * instruction ids and their kwargs; each is checked strictly (the response as given) and loosely
 * (looseVariants). Reward 1 when every instruction is followed strictly, else 0 (IFEval's
 * prompt-level strict accuracy); the four metrics of the IFEval paper are the signals.
 *
 * Dataset errors (thrown): `data.instructionIds` not a non-empty string array, `data.kwargs` not an
 * array of objects of the same length, an id the registry does not know, kwargs a checker cannot
 * use (found even when the response is blank). The response is never a reason to throw. A blank
 * response (Python's `str.strip()` white space) follows nothing, as in the reference.
 */
import type { EvalOutput, Task } from "../../types/index.js";
import type { Grader } from "../types.js";
import { looseVariants } from "./loose.js";
import { pyStrip } from "./python.js";
import type { InstructionRegistry } from "./types.js";

interface Instruction {
  id: string;
  args: Record<string, unknown>;
}

function instructionsOf(
  task: Task,
  benchmark: string,
  registry: InstructionRegistry,
): Instruction[] {
  const ids = task.data["instructionIds"];
  const kwargs = task.data["kwargs"];
  const where = `${benchmark} grader: task ${task.id}`;
  if (!Array.isArray(ids) || ids.length === 0 || !ids.every((i) => typeof i === "string")) {
    throw new Error(`${where}: data.instructionIds must be a non-empty array of instruction ids`);
  }
  if (!Array.isArray(kwargs) || kwargs.length !== ids.length) {
    throw new Error(
      `${where}: data.kwargs must be an array with one object per instruction id (${ids.length})`,
    );
  }
  return ids.map((id: string, k) => {
    if (!registry.has(id)) throw new Error(`${where}: unknown instruction id "${id}"`);
    const raw = kwargs[k] ?? {};
    if (typeof raw !== "object" || Array.isArray(raw)) {
      throw new Error(`${where}: data.kwargs[${k}] (for ${id}) must be an object`);
    }
    const args = Object.fromEntries(
      Object.entries(raw as Record<string, unknown>).filter(
        ([, v]) => v !== null && v !== undefined,
      ),
    );
    return { id, args };
  });
}

/** A grader over `registry`; `benchmark` names it in dataset errors. */
export function instructionGrader(benchmark: string, registry: InstructionRegistry): Grader {
  return (task, response): EvalOutput => {
    const instructions = instructionsOf(task, benchmark, registry);
    const prompt = typeof task.data["prompt"] === "string" ? task.data["prompt"] : "";
    const variants = looseVariants(response);
    const results = instructions.map(({ id, args }) => {
      const checker = registry.get(id)!;
      // Checked even when blank, so that kwargs it cannot use are reported whatever the response.
      const strict = checker.check(response, args, prompt) && pyStrip(response) !== "";
      const loose = strict || variants.some((v) => checker.check(v, args, prompt));
      return { id, strict, loose };
    });
    const n = results.length;
    const strictCount = results.filter((r) => r.strict).length;
    const looseCount = results.filter((r) => r.loose).length;
    const promptStrict = strictCount === n ? 1 : 0;
    return {
      reward: promptStrict,
      isCorrect: promptStrict === 1,
      signals: {
        promptStrict,
        promptLoose: looseCount === n ? 1 : 0,
        instStrict: strictCount / n,
        instLoose: looseCount / n,
      },
      metadata: { instructions: results },
    };
  };
}
