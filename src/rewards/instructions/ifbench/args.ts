/**
 * Reading a checker's kwargs (the task row's, nulls already dropped by the grader) and the shape of
 * an IFBench checker. A kwarg a checker cannot use is a dataset error naming it
 * (InstructionArgsError): a missing or mistyped required key, or a key the instruction does not
 * take (IFBench's `build_description` has keyword-only parameters, so Python rejects it too).
 * Where the reference draws a random value for a missing kwarg (it builds instructions as well as
 * checking them), we refuse: a grade must not depend on chance.
 */
import { InstructionArgsError, type InstructionChecker } from "../types.js";

export type Args = Readonly<Record<string, unknown>>;

/** Reads one instruction's kwargs; `keys` are the ones it takes. */
export class ArgReader {
  constructor(
    private readonly id: string,
    private readonly args: Args,
    keys: readonly string[],
  ) {
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

  private required(key: string): unknown {
    const v = this.args[key];
    if (v === undefined) throw new InstructionArgsError(this.id, key, "is required");
    return v;
  }

  /** An integer ≥ min (JSON rows carry 5.0 for 5: a number with no fractional part is accepted). */
  int(key: string, min: number): number {
    const v = this.required(key);
    if (typeof v !== "number" || !Number.isInteger(v) || v < min) {
      throw new InstructionArgsError(
        this.id,
        key,
        `must be an integer ≥ ${min}, got ${JSON.stringify(v)}`,
      );
    }
    return v;
  }

  /** A finite number. */
  number(key: string): number {
    const v = this.required(key);
    if (typeof v !== "number" || !Number.isFinite(v)) {
      throw new InstructionArgsError(this.id, key, `must be a number, got ${JSON.stringify(v)}`);
    }
    return v;
  }

  /** A string that is not empty after trimming (returned as given). */
  text(key: string): string {
    const v = this.required(key);
    if (typeof v !== "string" || v.trim() === "") {
      throw new InstructionArgsError(
        this.id,
        key,
        `must be a non-empty string, got ${JSON.stringify(v)}`,
      );
    }
    return v;
  }
}

/**
 * A checker whose arguments `read` takes from the kwargs (run before looking at the response, so a
 * bad row fails the same way whatever the model wrote).
 */
export function checker<A>(
  id: string,
  keys: readonly string[],
  read: (r: ArgReader) => A,
  check: (response: string, args: A, prompt: string) => boolean,
): InstructionChecker {
  return {
    id,
    check: (response, args, prompt) => check(response, read(new ArgReader(id, args, keys)), prompt),
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
