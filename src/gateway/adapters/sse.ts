/**
 * Helpers shared by the dialect adapters (Responses, Anthropic Messages): random ids in each
 * vendor's style, zod validation that reports issues under a caller-chosen path, the tolerant
 * readers used to echo fields of a request that may not have been validated. The core both stream
 * translators share is stream-blocks.ts.
 *
 * SSE framing itself (`SseEvent`, `formatSse`) lives in `../http.ts`; the adapters only produce
 * `SseEvent` values and leave writing them to the HTTP layer.
 */

import type { z } from "zod";
import { secureRandomBytes } from "../../random.js";
import type { ChatCompletionChoice, ChatCompletionChunkChoice } from "../../types/chat.js";
import type { SseEvent } from "../http.js";

export { formatSse } from "../http.js";
export type { SseEvent };

/** One validation problem, located by its path in the request body. */
export interface Issue {
  path: PropertyKey[];
  message: string;
}

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** `prefix` + `n` hex characters (OpenAI style: `resp_67cc…`). */
export function hexId(prefix: string, n = 48): string {
  return (
    prefix +
    secureRandomBytes(Math.ceil(n / 2))
      .toString("hex")
      .slice(0, n)
  );
}

/** `prefix` + `n` base62 characters (Anthropic style: `msg_013Zva2C…`). */
export function base62Id(prefix: string, n = 24): string {
  const bytes = secureRandomBytes(n);
  let s = "";
  // 62 does not divide 256, so the first few letters are a hair likelier; ids need no uniformity.
  for (const b of bytes) s += BASE62[b % 62];
  return prefix + s;
}

/**
 * Parses `value` with `schema`; on failure appends its issues, prefixed with `path`, to `issues`
 * and returns undefined, so a caller can collect every problem of a request before failing.
 */
export function check<T>(
  schema: z.ZodType<T>,
  value: unknown,
  path: PropertyKey[],
  issues: Issue[],
): T | undefined {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  for (const i of r.error.issues) issues.push({ path: [...path, ...i.path], message: i.message });
  return undefined;
}

/**
 * A zod `error` option that says "required" for a missing value and "must be <expected>" for a
 * wrong one; zod's default for unions ("Invalid input") names no expectation.
 */
export function mustBe(expected: string): { error: (iss: { input?: unknown }) => string } {
  return { error: (iss) => (iss.input === undefined ? "required" : `must be ${expected}`) };
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** A field of an unvalidated object, when it is a string. */
export function str(obj: unknown, key: string): string | undefined {
  const v = isRecord(obj) ? obj[key] : undefined;
  return typeof v === "string" ? v : undefined;
}

/** A field of an unvalidated object, when it is a finite number. */
export function num(obj: unknown, key: string): number | undefined {
  const v = isRecord(obj) ? obj[key] : undefined;
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}

/**
 * The reasoning text of a message or delta. vLLM ≥0.10 names it `reasoning`; older vLLM, SGLang
 * and DeepSeek `reasoning_content` (the canonical name in our chat types).
 */
export function reasoningOf(
  m: ChatCompletionChoice["message"] | ChatCompletionChunkChoice["delta"],
): string | undefined {
  const r = m.reasoning_content ?? (m as { reasoning?: unknown }).reasoning;
  return typeof r === "string" ? r : undefined;
}

/** Parses tool-call arguments to a JSON object, or undefined when they are not one. */
export function parseArgsObject(args: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(args);
    return isRecord(v) ? v : undefined;
  } catch {
    return undefined;
  }
}
