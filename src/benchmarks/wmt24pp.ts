/**
 * WMT24++ (google/wmt24pp; Deutsch et al., 2025): the WMT24 English sources (literary, news,
 * social, speech) with post-edited references in 55 languages and dialects, graded by `chrf`.
 *
 * The Hub repo holds one JSONL file per language pair, `en-<xx_YY>.jsonl` (a config each, whose
 * only split is "train"). Our splits are the pairs, named as the Hub names them: `--split en-de_DE`
 * is English → German (Germany); the default is en-de_DE. A row {lp, domain, document_id,
 * segment_id, is_bad_source, source, target, original_target} becomes `data.source`,
 * `data.reference` (the post-edited `target`, the reference the paper scores against),
 * `data.targetLang` ("de_DE"), `data.domain`, `data.documentId`, `data.segmentId`. Rows flagged
 * `is_bad_source` are left out (rowFilter), as the paper's evaluation does.
 *
 * The prompt asks for the translation alone, naming the target language and its region, after the
 * paper's prompt (its appendix): one user message, no system prompt.
 */
import type { Task } from "../types/index.js";
import type { BenchmarkEntry } from "./entry.js";
import { BenchmarkRowError, optionalScalar, type RowContext, requireString } from "./fields.js";
import { taskField } from "./prompts.js";

/** Each target of WMT24++: its language and the region of its dialect. */
const TARGETS: Record<string, [language: string, region: string]> = {
  ar_EG: ["Arabic", "Egypt"],
  ar_SA: ["Arabic", "Saudi Arabia"],
  bg_BG: ["Bulgarian", "Bulgaria"],
  bn_IN: ["Bengali", "India"],
  ca_ES: ["Catalan", "Spain"],
  cs_CZ: ["Czech", "Czechia"],
  da_DK: ["Danish", "Denmark"],
  de_DE: ["German", "Germany"],
  el_GR: ["Greek", "Greece"],
  es_MX: ["Spanish", "Mexico"],
  et_EE: ["Estonian", "Estonia"],
  fa_IR: ["Farsi", "Iran"],
  fi_FI: ["Finnish", "Finland"],
  fil_PH: ["Filipino", "Philippines"],
  fr_CA: ["French", "Canada"],
  fr_FR: ["French", "France"],
  gu_IN: ["Gujarati", "India"],
  he_IL: ["Hebrew", "Israel"],
  hi_IN: ["Hindi", "India"],
  hr_HR: ["Croatian", "Croatia"],
  hu_HU: ["Hungarian", "Hungary"],
  id_ID: ["Indonesian", "Indonesia"],
  is_IS: ["Icelandic", "Iceland"],
  it_IT: ["Italian", "Italy"],
  ja_JP: ["Japanese", "Japan"],
  kn_IN: ["Kannada", "India"],
  ko_KR: ["Korean", "South Korea"],
  lt_LT: ["Lithuanian", "Lithuania"],
  lv_LV: ["Latvian", "Latvia"],
  ml_IN: ["Malayalam", "India"],
  mr_IN: ["Marathi", "India"],
  nl_NL: ["Dutch", "Netherlands"],
  no_NO: ["Norwegian", "Norway"],
  pa_IN: ["Punjabi", "India"],
  pl_PL: ["Polish", "Poland"],
  pt_BR: ["Portuguese", "Brazil"],
  pt_PT: ["Portuguese", "Portugal"],
  ro_RO: ["Romanian", "Romania"],
  ru_RU: ["Russian", "Russia"],
  sk_SK: ["Slovak", "Slovakia"],
  sl_SI: ["Slovenian", "Slovenia"],
  sr_RS: ["Serbian", "Serbia"],
  sv_SE: ["Swedish", "Sweden"],
  sw_KE: ["Swahili", "Kenya"],
  sw_TZ: ["Swahili", "Tanzania"],
  ta_IN: ["Tamil", "India"],
  te_IN: ["Telugu", "India"],
  th_TH: ["Thai", "Thailand"],
  tr_TR: ["Turkish", "Turkey"],
  uk_UA: ["Ukrainian", "Ukraine"],
  ur_PK: ["Urdu", "Pakistan"],
  vi_VN: ["Vietnamese", "Vietnam"],
  zh_CN: ["Mandarin Chinese", "China"],
  zh_TW: ["Mandarin Chinese", "Taiwan"],
  zu_ZA: ["Zulu", "South Africa"],
};

const PAIRS = Object.keys(TARGETS).map((target) => `en-${target}`);

function targetOf(task: Task): [code: string, language: string, region: string] {
  const code = taskField(task, "targetLang");
  const target = TARGETS[code];
  if (!target)
    throw new Error(`task ${task.id}: data.targetLang "${code}" is not a WMT24++ target`);
  return [code, ...target];
}

export const wmt24pp: BenchmarkEntry = {
  name: "wmt24pp",
  description:
    "WMT24++ (Deutsch et al., 2025): 998 English segments per pair translated into 55 languages and dialects; split = pair, e.g. en-de_DE.",
  source: {
    hfDataset: "google/wmt24pp",
    splits: PAIRS,
    defaultSplit: "en-de_DE",
    files: Object.fromEntries(PAIRS.map((pair) => [pair, `${pair}.jsonl`])),
  },
  rowFilter: {
    reason: "segments flagged is_bad_source are left out, as in the WMT24++ paper",
    keep: (row) => row.is_bad_source !== true,
  },
  toTask(row, index, split) {
    const ctx: RowContext = { benchmark: "wmt24pp", split, index };
    const source = requireString(row, "source", ctx);
    const reference = requireString(row, "target", ctx);
    const lp = requireString(row, "lp", ctx);
    const targetLang = lp.slice(lp.indexOf("-") + 1);
    if (!lp.startsWith("en-") || !TARGETS[targetLang]) {
      throw new BenchmarkRowError(
        ctx,
        "lp",
        `must be en-<target> with a WMT24++ target, got "${lp}"`,
      );
    }
    const data: Record<string, unknown> = { source, reference, targetLang };
    const domain = optionalScalar(row, "domain");
    if (domain !== undefined) data.domain = domain;
    const documentId = optionalScalar(row, "document_id");
    if (documentId !== undefined) data.documentId = documentId;
    const segmentId = optionalScalar(row, "segment_id");
    if (segmentId !== undefined) data.segmentId = segmentId;
    return {
      id: segmentId === undefined ? `wmt24pp/${lp}/${index}` : `wmt24pp/${lp}/${segmentId}`,
      dataSource: "wmt24pp",
      index,
      data,
    };
  },
  grader: "chrf",
  systemPrompt: "",
  userPrompt(task) {
    const [code, language, region] = targetOf(task);
    return (
      `You are a professional English to ${language} translator, translating for readers in ` +
      `${region} (${code}). Convey the meaning and nuances of the English text accurately, with ` +
      `${language} grammar, vocabulary and cultural conventions.\n\n` +
      `Translate this English text into ${language} (${code}):\n\n${taskField(task, "source")}\n\n` +
      `Reply with the ${language} translation only, without explanations or commentary.`
    );
  },
  defaultAgent: "single-turn",
};
