/**
 * IFEval's 25 instruction checkers by id (google-research/google-research,
 * instruction_following_eval/instructions_registry.py `INSTRUCTION_DICT`; the checkers follow
 * instructions.py and instructions_util.py). The registry for `instructionGrader("ifeval", ...)`.
 */
import type { InstructionChecker, InstructionRegistry } from "../types.js";
import { capitalWordFrequency, englishCapital, englishLowercase } from "./case.js";
import { repeatPrompt, twoResponses } from "./combination.js";
import { numberPlaceholders, postscript } from "./content.js";
import {
  constrainedResponse,
  jsonFormat,
  multipleSections,
  numberBulletLists,
  numberHighlightedSections,
  title,
} from "./format.js";
import { existence, forbiddenWords, frequency, letterFrequency } from "./keywords.js";
import { responseLanguage } from "./language.js";
import { nthParagraphFirstWord, numberParagraphs, numberSentences, numberWords } from "./length.js";
import { noComma } from "./punctuation.js";
import { endChecker, quotation } from "./startend.js";

const CHECKERS: InstructionChecker[] = [
  existence,
  frequency,
  forbiddenWords,
  letterFrequency,
  responseLanguage,
  numberSentences,
  numberParagraphs,
  numberWords,
  nthParagraphFirstWord,
  numberPlaceholders,
  postscript,
  numberBulletLists,
  constrainedResponse,
  numberHighlightedSections,
  multipleSections,
  jsonFormat,
  title,
  twoResponses,
  repeatPrompt,
  endChecker,
  capitalWordFrequency,
  englishCapital,
  englishLowercase,
  noComma,
  quotation,
];

export const IFEVAL_REGISTRY: InstructionRegistry = new Map(CHECKERS.map((c) => [c.id, c]));
