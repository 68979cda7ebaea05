/**
 * Free-form answers an LLM judges: HLE and AA-LCR (`llm_equality`: `data.question`, `data.answer`)
 * and MultiChallenge (`judge`: `data.question`, `data.rubric`).
 *
 * - hle (cais/hle, gated: set HF_TOKEN; test split, Parquet). HLE mixes text and image questions;
 *   the default agent sends text only, so rows whose `image` is non-empty are left out by the
 *   loader (rowFilter) — as rLLM does — rather than sent without the picture they refer to. Row
 *   positions count the text rows; task ids are HLE's own ids. The system prompt is HLE's own by
 *   answer type (hle_eval/run_model_predictions.py: SYSTEM_EXACT_ANSWER, SYSTEM_MC), whose
 *   "Explanation / Answer / Confidence" layout HLE's judge reads.
 * - aa_lcr (ArtificialAnalysis/AA-LCR: 100 questions over ~100K-token document sets). The Hub's
 *   table (AA-LCR_Dataset.csv, split "test") holds the questions; the documents' texts are in the
 *   repo's extracted_text/AA-LCR_extracted-text.zip (`source.archive`, cached as documents.zip) at
 *   lcr/<document_category>/<document_set_id>/<file> — the category as written or with its spaces
 *   as underscores — for each file of the row's ";"-separated data_source_filenames, in that order
 *   (the card: order matters). The prompt is AA-LCR's template (the card's): every document
 *   between BEGIN/END DOCUMENT i markers, then the question. `data.documents` holds the texts.
 * - multichallenge (ScaleAI/MultiChallenge, the authors' release: 266 conversations,
 *   data/test-00000-of-00001.parquet). Rows {question_id, axis, conversation, target_question,
 *   pass_criteria, num_turns}; rLLM's copy nmayorga7/multichallenge spells the same fields in
 *   capitals, which are read too. The conversation is user/assistant turns ending with the user's,
 *   in any of the shapes copies use: a list of {role, content}, the datasets library's struct of
 *   parallel lists {role: [...], content: [...]} (Scale's Parquet), or a list as JSON text. The
 *   agent sends it as it is (no system prompt; `messages`), and `data.messages` keeps it. Graded
 *   as the authors grade it, by the judge's yes/no mode (rewards/judge.ts): the judge answers
 *   target_question (`data.judgeQuestion`) about the final reply, which passes when that answer is
 *   pass_criteria (`data.expectedVerdict`, "YES" or "NO"; any case in the row).
 */
import type { ChatMessage, Task } from "../types/index.js";
import type { BenchmarkEntry } from "./entry.js";
import {
  BenchmarkRowError,
  copyOptionalStrings,
  optionalScalar,
  type Row,
  type RowContext,
  requireScalar,
  requireString,
  requireValue,
} from "./fields.js";
import { taskField } from "./prompts.js";
import type { ZipArchive } from "./zip.js";

/** hle_eval/run_model_predictions.py SYSTEM_EXACT_ANSWER. */
const HLE_EXACT_ANSWER =
  "Your response should be in the following format:\nExplanation: {your explanation for your final answer}\nExact Answer: {your succinct, final answer}\nConfidence: {your confidence score between 0% and 100% for your answer}";
/** hle_eval/run_model_predictions.py SYSTEM_MC. */
const HLE_MULTIPLE_CHOICE =
  "Your response should be in the following format:\nExplanation: {your explanation for your answer choice}\nAnswer: {your chosen answer}\nConfidence: {your confidence score between 0% and 100% for your answer}";

function hasImage(row: Row): boolean {
  const image = row.image;
  return typeof image === "string" ? image.trim() !== "" : image !== undefined && image !== null;
}

const hle: BenchmarkEntry = {
  name: "hle",
  description:
    "Humanity's Last Exam (Phan et al., 2025): 2,500 expert questions across dozens of subjects; the text-only ones (gated: set HF_TOKEN).",
  source: { hfDataset: "cais/hle", splits: ["test"], defaultSplit: "test" },
  rowFilter: {
    reason: "questions with an image are left out: the default agent sends text only",
    keep: (row) => !hasImage(row),
  },
  toTask(row, index, split) {
    const ctx: RowContext = { benchmark: "hle", split, index };
    const id = requireString(row, "id", ctx);
    const question = requireString(row, "question", ctx);
    const answer = requireScalar(row, "answer", ctx);
    const answerType = requireString(row, "answer_type", ctx);
    if (answerType !== "exactMatch" && answerType !== "multipleChoice") {
      throw new BenchmarkRowError(
        ctx,
        "answer_type",
        `must be "exactMatch" or "multipleChoice", got "${answerType}"`,
      );
    }
    const data: Record<string, unknown> = { question, answer, answerType };
    copyOptionalStrings(row, ["category", "raw_subject", "rationale"], data);
    return { id: `hle/${id}`, dataSource: "hle", index, data };
  },
  grader: "llm_equality",
  systemPrompt: HLE_EXACT_ANSWER,
  userPrompt: (task) => taskField(task, "question"),
  messages(task) {
    const system =
      task.data.answerType === "multipleChoice" ? HLE_MULTIPLE_CHOICE : HLE_EXACT_ANSWER;
    return [
      { role: "system", content: system },
      { role: "user", content: taskField(task, "question") },
    ];
  },
  defaultAgent: "single-turn",
};

/** AA-LCR's documents for a row, read from the archive in data_source_filenames order. */
function attachDocuments(row: Row, archive: ZipArchive, ctx: RowContext): Row {
  const category = requireString(row, "document_category", ctx);
  const setId = requireScalar(row, "document_set_id", ctx);
  const files = requireString(row, "data_source_filenames", ctx)
    .split(";")
    .map((name) => name.trim())
    .filter((name) => name !== "");
  const dirs = [...new Set([category, category.replace(/ /g, "_")])].map(
    (c) => `lcr/${c}/${setId}/`,
  );
  const documents = files.map((file) => {
    for (const dir of dirs) {
      const text = archive.text(dir + file);
      if (text !== undefined) return text;
    }
    throw new BenchmarkRowError(
      ctx,
      "data_source_filenames",
      `names "${file}", which the documents archive lacks (looked in ${dirs.join(" and ")})`,
    );
  });
  return { ...row, documents };
}

function readDocuments(row: Row, ctx: RowContext): string[] {
  const list = requireValue(row, "documents", ctx);
  if (!Array.isArray(list) || list.length === 0 || !list.every((d) => typeof d === "string")) {
    throw new BenchmarkRowError(ctx, "documents", "must be a non-empty list of document texts");
  }
  return list as string[];
}

/** AA-LCR's prompt: every document between markers, then the question between markers. */
function aaLcrPrompt(task: Task): string {
  const documents = task.data.documents;
  if (!Array.isArray(documents))
    throw new Error(`task ${task.id}: data.documents must list the document texts`);
  const docs = documents
    .map((doc, i) => `BEGIN DOCUMENT ${i + 1}:\n${String(doc)}\nEND DOCUMENT ${i + 1}`)
    .join("\n\n");
  return (
    `BEGIN INPUT DOCUMENTS\n\n${docs}\n\nEND INPUT DOCUMENTS\n\n` +
    `Answer the following question using the input documents provided above.\n\n` +
    `START QUESTION\n\n${taskField(task, "question")}\n\nEND QUESTION\n`
  );
}

const aaLcr: BenchmarkEntry = {
  name: "aa_lcr",
  description:
    "AA-LCR (Artificial Analysis): 100 long-context reasoning questions, each over a ~100K-token set of real documents.",
  source: {
    hfDataset: "ArtificialAnalysis/AA-LCR",
    splits: ["test"],
    defaultSplit: "test",
    archive: {
      file: "extracted_text/AA-LCR_extracted-text.zip",
      name: "documents",
      attach: attachDocuments,
    },
  },
  toTask(row, index, split) {
    const ctx: RowContext = { benchmark: "aa_lcr", split, index };
    const question = requireString(row, "question", ctx);
    const answer = requireScalar(row, "answer", ctx);
    const documents = readDocuments(row, ctx);
    const data: Record<string, unknown> = { question, answer, documents };
    copyOptionalStrings(row, ["document_category"], data);
    const setId = optionalScalar(row, "document_set_id");
    if (setId !== undefined) data.documentSetId = setId;
    const ownId = optionalScalar(row, "question_id");
    return {
      id: ownId === undefined ? `aa_lcr/${split}/${index}` : `aa_lcr/${ownId}`,
      dataSource: "aa_lcr",
      index,
      data,
    };
  },
  grader: "llm_equality",
  systemPrompt: "",
  userPrompt: aaLcrPrompt,
  defaultAgent: "single-turn",
};

const CONVERSATION = ["conversation", "CONVERSATION"];

/** The turns of a conversation field, whichever shape the copy stores them in (module comment). */
function turnsOf(value: unknown, ctx: RowContext): unknown[] {
  if (typeof value === "string") {
    try {
      return turnsOf(JSON.parse(value), ctx);
    } catch (error) {
      if (error instanceof BenchmarkRowError) throw error;
      throw new BenchmarkRowError(
        ctx,
        "conversation",
        "is a string that is not a JSON list of turns",
      );
    }
  }
  if (Array.isArray(value)) return value;
  const { role, content } = (value ?? {}) as { role?: unknown; content?: unknown };
  if (Array.isArray(role) && Array.isArray(content) && role.length === content.length) {
    return role.map((r, i) => ({ role: r, content: content[i] }));
  }
  throw new BenchmarkRowError(
    ctx,
    "conversation",
    "must be a list of {role, content} turns, or {role: [...], content: [...]}",
  );
}

/** MultiChallenge's conversation as chat messages: user/assistant turns, the last the user's. */
function conversationOf(row: Row, ctx: RowContext): ChatMessage[] {
  const turns = turnsOf(requireValue(row, CONVERSATION, ctx), ctx);
  if (turns.length === 0) {
    throw new BenchmarkRowError(
      ctx,
      "conversation",
      "must be a non-empty list of {role, content} turns",
    );
  }
  const messages = turns.map((turn, i): ChatMessage => {
    const { role, content } = (turn ?? {}) as { role?: unknown; content?: unknown };
    if ((role !== "user" && role !== "assistant") || typeof content !== "string") {
      throw new BenchmarkRowError(
        ctx,
        `conversation[${i}]`,
        'must be {role: "user" | "assistant", content: string}',
      );
    }
    return { role, content };
  });
  if (messages.at(-1)!.role !== "user") {
    throw new BenchmarkRowError(
      ctx,
      "conversation",
      "must end with the user's turn (the one to answer)",
    );
  }
  return messages;
}

function storedConversation(task: Task): ChatMessage[] {
  const messages = task.data.messages;
  if (!Array.isArray(messages) || messages.length === 0) {
    throw new Error(`task ${task.id}: data.messages must hold the conversation to continue`);
  }
  return messages.map((m) => ({ ...(m as ChatMessage) }));
}

const PASS_CRITERIA = ["pass_criteria", "PASS_CRITERIA"];

const multichallenge: BenchmarkEntry = {
  name: "multichallenge",
  description:
    "MultiChallenge (Scale AI, 2025): 266 multi-turn conversations testing instruction retention, inference memory, versioned editing and self-coherence.",
  source: {
    hfDataset: "ScaleAI/MultiChallenge",
    splits: ["test"],
    defaultSplit: "test",
    files: { test: "data/test-00000-of-00001.parquet" },
  },
  toTask(row, index, split) {
    const ctx: RowContext = { benchmark: "multichallenge", split, index };
    const messages = conversationOf(row, ctx);
    const judgeQuestion = requireString(row, ["target_question", "TARGET_QUESTION"], ctx);
    const expectedVerdict = requireString(row, PASS_CRITERIA, ctx).trim().toUpperCase();
    if (expectedVerdict !== "YES" && expectedVerdict !== "NO") {
      throw new BenchmarkRowError(ctx, "pass_criteria", 'must be "YES" or "NO"');
    }
    const data: Record<string, unknown> = { messages, judgeQuestion, expectedVerdict };
    const axis = optionalScalar(row, ["axis", "AXIS"]);
    if (axis !== undefined) data.axis = axis;
    const ownId = optionalScalar(row, ["question_id", "QUESTION_ID"]);
    return {
      id: ownId === undefined ? `multichallenge/${split}/${index}` : `multichallenge/${ownId}`,
      dataSource: "multichallenge",
      index,
      data,
    };
  },
  grader: "judge",
  systemPrompt: "",
  userPrompt(task) {
    const last = storedConversation(task).at(-1)!;
    return String(last.content);
  },
  messages: storedConversation,
  defaultAgent: "single-turn",
};

/** The judged rows, in catalog order. */
export const QA_BENCHMARKS: readonly BenchmarkEntry[] = [hle, aaLcr, multichallenge];
