/**
 * Verifiable instructions (IFEval, IFBench): each instruction id names a checker that decides, from
 * the response alone, whether the instruction was followed. A checker reads its arguments from the
 * task's kwargs (keys whose value is null are dropped before it sees them).
 */

/** A task's kwargs for one instruction that a checker cannot use: a dataset error naming the key. */
export class InstructionArgsError extends Error {
  constructor(id: string, key: string, problem: string) {
    super(`instruction ${id}: kwarg "${key}" ${problem}`);
    this.name = "InstructionArgsError";
  }
}

export interface InstructionChecker {
  /** The instruction id as the dataset spells it, e.g. "punctuation:no_comma". */
  readonly id: string;
  /**
   * True when `response` follows the instruction. `args` are the row's kwargs for it without null
   * values; `prompt` is the task's prompt (a few instructions refer to it). Throws
   * InstructionArgsError for arguments it cannot use, never for anything in the response.
   */
  check(response: string, args: Readonly<Record<string, unknown>>, prompt: string): boolean;
}

/** A benchmark's checkers by instruction id. */
export type InstructionRegistry = ReadonlyMap<string, InstructionChecker>;
