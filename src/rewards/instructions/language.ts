/**
 * The language of a response as an ISO 639-1 code, for instructions such as IFEval's
 * `language:response_language` and `change_case:english_*`, whose reference uses Python's
 * langdetect (a port of Shuyo's language-detection: 55 languages, ISO 639-1 codes, random
 * restarts, so not deterministic on borderline text).
 *
 * Detector: franc 6 (trigram profiles of the UDHR; script detection for single-script languages),
 * limited to langdetect's languages (all 55 but Welsh, which franc lacks, with one Chinese) so that
 * both choose among the same candidates, and mapped from ISO 639-3 to langdetect's codes. Chosen over the alternatives on the 30 languages IFEval asks
 * for: eld has no Nepali or Swahili, tinyld has no Nepali, Marathi, Punjabi, Malayalam or Swahili,
 * and the npm `langdetect` port is unmaintained, non-deterministic and pulls a 144 MB Unicode table.
 * On one paragraph per language franc (so limited) agreed with langdetect on all 30; on 8-word
 * fragments it mixed up 4 (fr/en, ru/mk, ur/fa, pl/hr) where langdetect got 29 right, so short
 * responses are where the two disagree.
 *
 * franc reads the first 2,048 characters of a text (fixed in franc), langdetect the first 10,000:
 * a response that changes language after that is judged by its beginning.
 * Deterministic. Text with nothing to detect (no letters) is `undefined`; the reference counts such
 * a response as following the instruction, and so do the checkers.
 */
import { franc } from "franc";

/** franc's ISO 639-3 code → langdetect's code, for langdetect's languages franc knows. */
const LANGDETECT_CODES: Readonly<Record<string, string>> = {
  afr: "af",
  arb: "ar",
  bul: "bg",
  ben: "bn",
  cat: "ca",
  ces: "cs",
  dan: "da",
  deu: "de",
  ell: "el",
  eng: "en",
  spa: "es",
  ekk: "et",
  pes: "fa",
  fin: "fi",
  fra: "fr",
  guj: "gu",
  heb: "he",
  hin: "hi",
  hrv: "hr",
  hun: "hu",
  ind: "id",
  ita: "it",
  jpn: "ja",
  kan: "kn",
  kor: "ko",
  lit: "lt",
  lvs: "lv",
  mkd: "mk",
  mal: "ml",
  mar: "mr",
  npi: "ne",
  nld: "nl",
  nob: "no",
  pan: "pa",
  pol: "pl",
  por: "pt",
  ron: "ro",
  rus: "ru",
  slk: "sk",
  slv: "sl",
  som: "so",
  als: "sq",
  swe: "sv",
  swh: "sw",
  tam: "ta",
  tel: "te",
  tha: "th",
  tgl: "tl",
  tur: "tr",
  ukr: "uk",
  urd: "ur",
  vie: "vi",
  cmn: "zh-cn",
};
const ONLY = Object.keys(LANGDETECT_CODES);

/** The ISO 639-1 code of the language `text` is in, or undefined when it cannot be told. */
export function detectLanguage(text: string): string | undefined {
  return LANGDETECT_CODES[franc(text, { only: ONLY, minLength: 1 })];
}
