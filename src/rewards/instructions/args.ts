/**
 * Reading one instruction's kwargs (IFEval's and IFBench's checkers share it): each getter returns
 * the value or throws InstructionArgsError naming the instruction and the key. Decided once:
 *
 * - A key that is absent (or was null in the row) is missing: the references draw a random value
 *   then, which would grade against an instruction the prompt never gave, so here it is a dataset
 *   error.
 * - Integers may arrive as floats with no fractional part (the Hub rows store 3 as 3.0).
 * - A checker declared with its keys (`checker`, `plain`; IFBench, whose `build_description` has
 *   keyword-only parameters, so Python rejects others too) refuses any other kwarg, and reads its
 *   kwargs before looking at the response, so a bad row fails the same way whatever the model
 *   wrote. One declared with `instruction` (IFEval) reads them as its check needs them.
 */
import { RELATIONS, type Relation } from "./text.js";
import { InstructionArgsError, type InstructionChecker } from "./types.js";

type Args = Readonly<Record<string, unknown>>;

export class InstructionArgs {
  /** `keys`, when given, are the only kwargs the instruction takes. */
  constructor(
    private readonly id: string,
    private readonly args: Args,
    keys?: readonly string[],
  ) {
    if (!keys) return;
    for (const key of Object.keys(args)) {
      if (!keys.includes(key)) {
        const takes = keys.length ? `takes only ${keys.join(", ")}` : "takes no arguments";
        throw new InstructionArgsError(
          id,
          key,
          `is not an argument of this instruction (it ${takes})`,
        );
      }
    }
  }

  private present(key: string): unknown {
    const v = this.args[key];
    if (v === undefined || v === null) throw new InstructionArgsError(this.id, key, "is missing");
    return v;
  }

  private bad(key: string, what: string, v: unknown): InstructionArgsError {
    return new InstructionArgsError(this.id, key, `must be ${what} (got ${JSON.stringify(v)})`);
  }

  /** An integer ≥ `min`. */
  int(key: string, min = 0): number {
    const v = this.present(key);
    if (typeof v !== "number" || !Number.isInteger(v) || v < min) {
      throw this.bad(key, min === 0 ? "a non-negative integer" : `an integer ≥ ${min}`, v);
    }
    return v;
  }

  /** A finite number. */
  number(key: string): number {
    const v = this.present(key);
    if (typeof v !== "number" || !Number.isFinite(v)) throw this.bad(key, "a number", v);
    return v;
  }

  /** A string that is not blank (returned as given). */
  text(key: string): string {
    const v = this.present(key);
    if (typeof v !== "string" || v.trim() === "") throw this.bad(key, "a non-empty string", v);
    return v;
  }

  /** A non-empty array of non-blank strings. */
  textList(key: string): string[] {
    const v = this.present(key);
    if (
      !Array.isArray(v) ||
      v.length === 0 ||
      !v.every((s) => typeof s === "string" && s.trim() !== "")
    ) {
      throw this.bad(key, "a non-empty array of strings", v);
    }
    return v as string[];
  }

  /**
   * `source` (the value of `key`, or one of its items) as the reference uses it: a Python regular
   * expression. Compiled the same way here (`flags` plus "u"); one JavaScript cannot compile is a
   * dataset error.
   */
  regex(key: string, source: string, flags: string): RegExp {
    try {
      return new RegExp(source, `${flags}u`);
    } catch {
      throw new InstructionArgsError(
        this.id,
        key,
        `is not a valid pattern (${JSON.stringify(source)})`,
      );
    }
  }

  /** "less than" or "at least". */
  relation(key: string): Relation {
    const v = this.present(key);
    if (!RELATIONS.includes(v as Relation)) {
      throw this.bad(key, `one of ${RELATIONS.map((r) => `"${r}"`).join(", ")}`, v);
    }
    return v as Relation;
  }
}

/** A checker that reads its kwargs through InstructionArgs as `check` needs them. */
export function instruction(
  id: string,
  check: (response: string, args: InstructionArgs, prompt: string) => boolean,
): InstructionChecker {
  return {
    id,
    check: (response, args, prompt) => check(response, new InstructionArgs(id, args), prompt),
  };
}

/** A checker that takes exactly `keys`, read by `read` before the response is looked at. */
export function checker<A>(
  id: string,
  keys: readonly string[],
  read: (r: InstructionArgs) => A,
  check: (response: string, args: A, prompt: string) => boolean,
): InstructionChecker {
  return {
    id,
    check: (response, args, prompt) =>
      check(response, read(new InstructionArgs(id, args, keys)), prompt),
  };
}

/** A checker that takes no arguments. */
export function plain(id: string, check: (response: string) => boolean): InstructionChecker {
  return checker(
    id,
    [],
    () => undefined,
    (response) => check(response),
  );
}
