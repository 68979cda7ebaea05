/**
 * Reading one instruction's kwargs: each getter returns the value or throws InstructionArgsError
 * naming the instruction and the key. A key that is absent (or was null in the row) is missing: the
 * references draw a random value then, which would grade against an instruction the prompt never
 * gave, so here it is a dataset error. Numbers must be integers (the Hub rows store them as such,
 * sometimes as floats like 3.0).
 */
import { RELATIONS, type Relation } from "./text.js";
import { InstructionArgsError, type InstructionChecker } from "./types.js";

export class InstructionArgs {
  constructor(
    private readonly id: string,
    private readonly args: Readonly<Record<string, unknown>>,
  ) {}

  private present(key: string): unknown {
    const v = this.args[key];
    if (v === undefined || v === null) throw new InstructionArgsError(this.id, key, "is missing");
    return v;
  }

  /** A non-negative integer. */
  count(key: string): number {
    const v = this.present(key);
    if (typeof v !== "number" || !Number.isInteger(v) || v < 0) {
      throw new InstructionArgsError(
        this.id,
        key,
        `must be a non-negative integer (got ${JSON.stringify(v)})`,
      );
    }
    return v;
  }

  /** A string that is not blank. */
  text(key: string): string {
    const v = this.present(key);
    if (typeof v !== "string" || v.trim() === "") {
      throw new InstructionArgsError(
        this.id,
        key,
        `must be a non-empty string (got ${JSON.stringify(v)})`,
      );
    }
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
      throw new InstructionArgsError(
        this.id,
        key,
        `must be a non-empty array of strings (got ${JSON.stringify(v)})`,
      );
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
      throw new InstructionArgsError(
        this.id,
        key,
        `must be one of ${RELATIONS.map((r) => `"${r}"`).join(", ")} (got ${JSON.stringify(v)})`,
      );
    }
    return v as Relation;
  }
}

/** A checker whose kwargs are read through InstructionArgs. */
export function instruction(
  id: string,
  check: (response: string, args: InstructionArgs, prompt: string) => boolean,
): InstructionChecker {
  return {
    id,
    check: (response, args, prompt) => check(response, new InstructionArgs(id, args), prompt),
  };
}
