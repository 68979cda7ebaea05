/**
 * IFBench (Pyatkin et al. 2025, "Generalizing Verifiable Instruction Following"; allenai/IFBench):
 * the checkers of its 58 out-of-distribution instructions, the ones its test set
 * (allenai/IFBench_test) uses, by instruction id (`ifbench/instructions_registry.py`). IFBench's
 * registry also carries IFEval's 25 classic checkers; IFBench_test never uses them, and they live in
 * the IFEval registry.
 *
 * NLTK, which the reference leans on, is reproduced: Punkt sentence splitting with NLTK's English
 * model and its word tokenizer, shared with IFEval (../punkt.ts, ../text.ts), checked equal to
 * NLTK 3.9.2 on ~4,300 texts. The one checker that differs by design is words:start_verb, whose POS tagger is
 * a downloaded model NLTK does not ship; pos.ts says how.
 */
import type { InstructionChecker, InstructionRegistry } from "../types.js";
import { COUNT_CHECKERS } from "./count.js";
import { CUSTOM_CHECKERS } from "./custom.js";
import { FORMAT_CHECKERS } from "./format.js";
import { RATIO_CHECKERS } from "./ratio.js";
import { REPEAT_CHECKERS } from "./repeat.js";
import { SENTENCE_CHECKERS } from "./sentence.js";
import { WORDS_CHECKERS } from "./words.js";

const ALL: InstructionChecker[] = [
  ...COUNT_CHECKERS,
  ...RATIO_CHECKERS,
  ...WORDS_CHECKERS,
  ...SENTENCE_CHECKERS,
  ...FORMAT_CHECKERS,
  ...CUSTOM_CHECKERS,
  ...REPEAT_CHECKERS,
];

export const IFBENCH_REGISTRY: InstructionRegistry = new Map(ALL.map((c) => [c.id, c]));
