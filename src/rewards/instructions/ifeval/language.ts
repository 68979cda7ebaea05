/**
 * IFEval's `language:response_language` (instructions.py: ResponseLanguageChecker): the detected
 * language of the whole response (../language.ts) is `language`, an ISO 639-1 code; a response whose
 * language cannot be told (no letters) passes, as in the reference.
 */
import { instruction } from "../args.js";
import { detectLanguage } from "../language.js";

export const responseLanguage = instruction("language:response_language", (response, a) => {
  const expected = a.text("language").trim();
  const detected = detectLanguage(response);
  return detected === undefined || detected === expected;
});
