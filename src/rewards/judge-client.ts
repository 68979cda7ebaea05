/**
 * The LLM judge's client: one OpenAI-compatible Chat Completions call per verdict, retried,
 * cached by content hash. The graders (judge.ts) give it a prompt and a parser; it gives them a
 * parsed verdict or an `InfrastructureError`.
 *
 * Where a call goes is a `JudgeEndpoint`: `directEndpoint(baseURL, apiKey)` calls a server as it
 * is; `rllm eval`/`rllm train` pass one that opens a gateway session per call (cli/judge.ts), so
 * the judge's calls are traced in the run's store under their own sessions `judge/<hash>/<random>`,
 * never inside an episode's.
 *
 * Failures, decided once:
 * - transport: a connection error, a timeout (`timeoutSeconds` per call), HTTP 429 or 5xx is
 *   retried `retries` times with exponential backoff (0.5 s · 2^i, at most 8 s, or the server's
 *   Retry-After up to 30 s); then an InfrastructureError naming the endpoint and what failed.
 *   Another 4xx (a wrong model name, a bad key) is not retried: the InfrastructureError says so.
 * - an unparsable verdict: asked again `retries` times, each time with the reply and a reminder of
 *   the format appended to the conversation (at temperature 0 the same prompt would give the same
 *   reply); then an InfrastructureError quoting the end of the last reply.
 * Failures are never cached.
 *
 * Cache: key = sha256 over (judge model, the prompt template's version, the full prompt, the
 * sampling parameters) — change any and the verdict is asked anew. The value is the reply that
 * parsed (re-parsed on a hit). A `JudgeCache` is the persistent store (store/judge-cache.ts, a
 * SQLite file the CLI opens); concurrent grades of the same content share one call in process.
 */
import { createHash, randomBytes } from "node:crypto";
import { request } from "undici";
import { InfrastructureError } from "../types/index.js";

/** Where one judge call goes: the base URL (…/v1) and the key to send. */
export interface JudgeRoute {
  baseURL: string;
  apiKey?: string;
  /** Called once the call is over (a gateway session is closed; its traces stay). */
  done?: () => Promise<void>;
}

export interface JudgeEndpoint {
  /** For error messages: the server (or gateway) behind it. */
  readonly label: string;
  /** The route of one HTTP call; `sessionId` names it (`judge/<hash>/<random>`, unique). */
  open(sessionId: string): Promise<JudgeRoute>;
}

/** Calls `baseURL` as it is (no gateway, no traces). */
export function directEndpoint(baseURL: string, apiKey?: string): JudgeEndpoint {
  const base = baseURL.replace(/\/+$/, "");
  return { label: base, open: async () => ({ baseURL: base, ...(apiKey ? { apiKey } : {}) }) };
}

/** Verdicts by content hash; `get` of an unknown key is undefined. */
export interface JudgeCache {
  get(key: string): string | undefined;
  set(key: string, model: string, reply: string): void;
}

export interface JudgeOptions {
  endpoint: JudgeEndpoint;
  model: string;
  maxTokens: number;
  retries: number;
  timeoutSeconds: number;
  cache?: JudgeCache | undefined;
  /** First backoff (ms); doubles per retry. Default 500. */
  backoffMs?: number;
}

/** One question to the judge: the prompt, its template's version, how to read and re-ask. */
export interface JudgeQuestion<V> {
  prompt: string;
  templateVersion: string;
  /** The verdict in `reply`, or undefined when it has none in the required format. */
  parse(reply: string): V | undefined;
  /** What to send after an unparsable reply: the format, said again. */
  reminder: string;
}

export interface JudgeAnswer<V> {
  verdict: V;
  reply: string;
  cached: boolean;
  model: string;
}

export interface Judge {
  readonly model: string;
  ask<V>(question: JudgeQuestion<V>): Promise<JudgeAnswer<V>>;
}

type Message = { role: "user" | "assistant"; content: string };

export function createJudge(options: JudgeOptions): Judge {
  const { endpoint, model, maxTokens, retries, cache } = options;
  const params = { max_tokens: maxTokens, temperature: 0 };
  const inFlight = new Map<string, Promise<string>>();
  const backoffMs = options.backoffMs ?? 500;

  /** The judge's reply text to `messages`, retrying the transport; throws InfrastructureError. */
  async function post(messages: Message[], key: string): Promise<string> {
    let last = "";
    for (let attempt = 0; ; attempt++) {
      // each HTTP call its own session: judge/<the content hash's first 16 hex>/<random>
      const r = await postOnce(
        messages,
        `judge/${key.slice(0, 16)}/${randomBytes(4).toString("hex")}`,
      );
      if (r.ok) return r.text;
      last = r.why;
      if (!r.retryable || attempt >= retries)
        throw new InfrastructureError(
          `judge ${endpoint.label} (model ${model}): ${last}${r.retryable && retries > 0 ? ` (after ${retries + 1} tries)` : ""}`,
        );
      const wait = r.retryAfterMs ?? Math.min(8000, backoffMs * 2 ** attempt);
      await new Promise((res) => setTimeout(res, wait * (0.8 + 0.4 * Math.random())));
    }
  }

  type Try =
    | { ok: true; text: string }
    | { ok: false; retryable: boolean; why: string; retryAfterMs?: number };

  async function postOnce(messages: Message[], sessionId: string): Promise<Try> {
    let route: JudgeRoute;
    try {
      route = await endpoint.open(sessionId);
    } catch (err) {
      return { ok: false, retryable: true, why: `could not open a call: ${errText(err)}` };
    }
    try {
      const res = await request(`${route.baseURL}/chat/completions`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          ...(route.apiKey ? { authorization: `Bearer ${route.apiKey}` } : {}),
        },
        body: JSON.stringify({ model, messages, ...params }),
        signal: AbortSignal.timeout(options.timeoutSeconds * 1000),
      });
      const body = await res.body.text();
      if (res.statusCode !== 200) {
        const retryable = res.statusCode === 429 || res.statusCode >= 500;
        const after = Number(res.headers["retry-after"]);
        return {
          ok: false,
          retryable,
          why: `HTTP ${res.statusCode}: ${body.slice(0, 300)}`,
          ...(retryable && after > 0 ? { retryAfterMs: Math.min(after, 30) * 1000 } : {}),
        };
      }
      const content = replyText(body);
      if (content === undefined)
        return {
          ok: false,
          retryable: true,
          why: `no message in the reply: ${body.slice(0, 300)}`,
        };
      return { ok: true, text: content };
    } catch (err) {
      const why =
        (err as Error).name === "TimeoutError"
          ? `no reply within ${options.timeoutSeconds} s`
          : errText(err);
      return { ok: false, retryable: true, why };
    } finally {
      await route.done?.().catch(() => {});
    }
  }

  /** A reply `question.parse` accepts: asked, then re-asked with the reminder. */
  async function verdictReply<V>(question: JudgeQuestion<V>, key: string): Promise<string> {
    const messages: Message[] = [{ role: "user", content: question.prompt }];
    for (let attempt = 0; ; attempt++) {
      const reply = await post(messages, key);
      if (question.parse(reply) !== undefined) return reply;
      if (attempt >= retries)
        throw new InfrastructureError(
          `judge ${endpoint.label} (model ${model}): no verdict in the required format after ${retries + 1} replies; the last ended ${JSON.stringify(reply.slice(-200))}`,
        );
      messages.push(
        { role: "assistant", content: reply },
        { role: "user", content: question.reminder },
      );
    }
  }

  return {
    model,
    async ask<V>(question: JudgeQuestion<V>): Promise<JudgeAnswer<V>> {
      const key = judgeCacheKey(model, question.templateVersion, question.prompt, params);
      const hit = cache?.get(key);
      const hitVerdict = hit === undefined ? undefined : question.parse(hit);
      if (hit !== undefined && hitVerdict !== undefined)
        return { verdict: hitVerdict, reply: hit, cached: true, model };
      let pending = inFlight.get(key);
      if (!pending) {
        pending = verdictReply(question, key).then((reply) => {
          cache?.set(key, model, reply);
          return reply;
        });
        inFlight.set(key, pending);
        void pending.then(
          () => inFlight.delete(key),
          () => inFlight.delete(key),
        );
      }
      const reply = await pending;
      return { verdict: question.parse(reply)!, reply, cached: false, model };
    },
  };
}

/** sha256 over everything that decides the verdict (module header). */
function judgeCacheKey(
  model: string,
  templateVersion: string,
  prompt: string,
  params: Record<string, unknown>,
): string {
  return createHash("sha256")
    .update(JSON.stringify([model, templateVersion, prompt, params]))
    .digest("hex");
}

/** The assistant text of a Chat Completion body (a reasoning model's `content`), else undefined. */
function replyText(body: string): string | undefined {
  try {
    const content = (JSON.parse(body) as { choices?: { message?: { content?: unknown } }[] })
      .choices?.[0]?.message?.content;
    return typeof content === "string" ? content : undefined;
  } catch {
    return undefined;
  }
}

function errText(err: unknown): string {
  const e = err as Error & { code?: string; cause?: { code?: string; message?: string } };
  const code = e.code ?? e.cause?.code;
  return `${e.message}${code && !e.message.includes(code) ? ` (${code})` : ""}`;
}
