/**
 * A chat template compiled once and rendered the way transformers' `apply_chat_template` renders
 * it (trim_blocks + lstrip_blocks, `tojson` without key sorting or HTML escaping, the
 * `raise_exception` and `strftime_now` globals, the special-tokens map as variables), on top of
 * @huggingface/jinja.
 */
import { Environment, Interpreter, Template } from "@huggingface/jinja";
import type { ChatMessage, Tool } from "../types/chat.js";
import { ChatTemplateError } from "./errors.js";

/** One variant of a model's template: tokenizer_config may hold several ("default", "tool_use"). */
export interface NamedTemplate {
  name: string;
  template: string;
}

export interface TemplateRenderInput {
  messages: ChatMessage[];
  tools?: Tool[] | undefined;
  addGenerationPrompt: boolean;
  templateKwargs?: Record<string, unknown> | undefined;
}

/**
 * How message content reaches the template. Most text templates (Qwen3's included) call string
 * methods on `message.content`, so OpenAI content parts must be flattened first; templates that
 * loop over content parts themselves get the parts. This is vLLM's "string" vs "openai" format.
 */
export type ContentFormat = "string" | "openai";

/** Names transformers passes itself; a template kwarg with one of them is a caller bug. */
const RESERVED_VARIABLES = new Set(["messages", "tools", "documents", "add_generation_prompt"]);

/** A `raise_exception(...)` call in the template, told apart from engine failures. */
class TemplateRaised extends Error {}

export class ChatTemplate {
  private readonly variants = new Map<string, Template>();
  private readonly globals: Environment;
  readonly contentFormat: ContentFormat;

  /**
   * @param sources the template variants; a single one is named "default".
   * @param specialTokens bos_token/eos_token/... as transformers' `special_tokens_map` provides them.
   * @param origin where the template came from, for error messages.
   */
  constructor(
    sources: NamedTemplate[],
    private readonly specialTokens: Record<string, string | string[]>,
    readonly origin: string,
  ) {
    for (const { name, template } of sources) {
      try {
        this.variants.set(name, new Template(template));
      } catch (err) {
        throw new Error(
          `the chat template "${name}" from ${origin} does not parse: ${(err as Error).message}`,
          { cause: err },
        );
      }
    }
    if (!this.variants.has("default")) {
      const names = [...this.variants.keys()].join(", ");
      throw new Error(
        `${origin} has chat templates named [${names}] but none named "default"; ` +
          `name one "default" (transformers needs it too)`,
      );
    }
    this.contentFormat = sources.some((s) => LOOPS_OVER_CONTENT.test(s.template))
      ? "openai"
      : "string";
    this.globals = makeGlobals();
  }

  /** Names of the variants, e.g. ["default", "tool_use"]. */
  get names(): string[] {
    return [...this.variants.keys()];
  }

  render(input: TemplateRenderInput): string {
    // transformers picks "tool_use" when tools are passed and the model ships one, else "default".
    const hasTools = input.tools != null && input.tools.length > 0;
    const template =
      (hasTools ? this.variants.get("tool_use") : undefined) ?? this.variants.get("default")!;
    const env = new Environment(this.globals);
    const vars: Record<string, unknown> = { ...this.specialTokens };
    for (const [k, v] of Object.entries(input.templateKwargs ?? {})) {
      if (RESERVED_VARIABLES.has(k)) {
        throw new ChatTemplateError(
          `template kwarg "${k}" collides with a variable the renderer sets itself; drop it`,
          true,
        );
      }
      vars[k] = v;
    }
    vars["messages"] = toTemplateMessages(input.messages, this.contentFormat);
    // transformers always passes tools and documents, None when absent, so `tools is defined`
    // holds and `tools is none` tells "no tools".
    vars["tools"] = input.tools ?? null;
    vars["documents"] = null;
    vars["add_generation_prompt"] = input.addGenerationPrompt;
    for (const [k, v] of Object.entries(vars)) env.set(k, v);
    try {
      const out = new Interpreter(env).run(template.parsed);
      return String(out.value);
    } catch (err) {
      if (err instanceof TemplateRaised) {
        throw new ChatTemplateError(
          `the chat template rejected the conversation: ${err.message}`,
          true,
        );
      }
      throw new ChatTemplateError(
        `the chat template from ${this.origin} failed to render: ${(err as Error).message}`,
        false,
        { cause: err },
      );
    }
  }
}

/** Detects `{% for x in message.content %}` / `message['content']` (vLLM's "openai" format). */
const LOOPS_OVER_CONTENT =
  /\{%-?\s*for\s+\w+\s+in\s+\w+(?:\.content|\[\s*['"]content['"]\s*\])\s*(?:\||-?%\})/;

/**
 * OpenAI wire messages → what chat templates expect, as vLLM prepares them:
 * - null/absent content becomes "": assistant messages with only tool calls carry `content: null`,
 *   and templates such as Qwen3's test `'</think>' in message.content`, which fails on None;
 * - content parts are joined with "\n" for string-format templates;
 * - tool-call arguments that are a JSON object string become the object: transformers documents
 *   them as dicts and templates print them with `tojson` (Llama 3 would double-encode a string).
 * The caller's objects are never mutated.
 */
export function toTemplateMessages(messages: ChatMessage[], format: ContentFormat): ChatMessage[] {
  return messages.map((m) => {
    const out: ChatMessage = { ...m };
    if (m.content == null) out.content = "";
    else if (Array.isArray(m.content) && format === "string") {
      out.content = m.content
        .filter((p) => p.type === "text" && typeof p.text === "string")
        .map((p) => p.text as string)
        .join("\n");
    }
    if (m.tool_calls) {
      out.tool_calls = m.tool_calls.map((c) => {
        const args = parseObjectArguments(c.function?.arguments);
        if (args === undefined) return c;
        // The wire type says arguments is a string; templates want the object.
        return { ...c, function: { ...c.function, arguments: args as unknown as string } };
      });
    }
    return out;
  });
}

function parseObjectArguments(args: unknown): Record<string, unknown> | undefined {
  if (typeof args !== "string") return undefined;
  const trimmed = args.trim();
  if (!trimmed.startsWith("{")) return undefined;
  try {
    const parsed: unknown = JSON.parse(trimmed);
    if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) {
      return parsed as Record<string, unknown>;
    }
  } catch {
    // Not JSON: the template gets the string as the agent sent it.
  }
  return undefined;
}

/**
 * The globals of transformers' jinja environment. Built by hand because @huggingface/jinja's own
 * `raise_exception` throws a bare Error (no way to tell it from an engine bug) and its
 * `strftime_now` uses the host locale for month names, while Python's C locale is English.
 */
function makeGlobals(): Environment {
  const env = new Environment();
  env.set("false", false);
  env.set("true", true);
  env.set("none", null);
  env.set("False", false);
  env.set("True", true);
  env.set("None", null);
  env.set("range", pyRange);
  env.set("raise_exception", (message: unknown) => {
    throw new TemplateRaised(String(message));
  });
  env.set("strftime_now", (format: unknown) => strftime(new Date(), String(format)));
  return env;
}

function pyRange(start: number, stop?: number, step = 1): number[] {
  let lo = start;
  let hi = stop;
  if (hi === undefined) {
    hi = lo;
    lo = 0;
  }
  if (step === 0) throw new Error("range() arg 3 must not be zero");
  const out: number[] = [];
  if (step > 0) for (let i = lo; i < hi; i += step) out.push(i);
  else for (let i = lo; i > hi; i += step) out.push(i);
  return out;
}

const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];

/**
 * `datetime.now().strftime(format)` in the C locale, local time, with glibc's `%-d` style
 * no-padding flag (Llama 3.x templates use `strftime_now("%d %b %Y")`, others `%-d`).
 */
export function strftime(date: Date, format: string): string {
  const pad = (n: number, width = 2) => String(n).padStart(width, "0");
  return format.replace(/%(-?)([a-zA-Z%])/g, (whole, noPad: string, code: string) => {
    const p = (n: number, width = 2) => (noPad ? String(n) : pad(n, width));
    const hour12 = date.getHours() % 12 === 0 ? 12 : date.getHours() % 12;
    switch (code) {
      case "Y":
        return String(date.getFullYear());
      case "y":
        return p(date.getFullYear() % 100);
      case "m":
        return p(date.getMonth() + 1);
      case "d":
        return p(date.getDate());
      case "e":
        return String(date.getDate()).padStart(2, " ");
      case "H":
        return p(date.getHours());
      case "I":
        return p(hour12);
      case "M":
        return p(date.getMinutes());
      case "S":
        return p(date.getSeconds());
      case "p":
        return date.getHours() < 12 ? "AM" : "PM";
      case "j": {
        // Counted on UTC midnights so a daylight-saving shift cannot lose a day.
        const today = Date.UTC(date.getFullYear(), date.getMonth(), date.getDate());
        const day = (today - Date.UTC(date.getFullYear(), 0, 1)) / 86_400_000 + 1;
        return p(day, 3);
      }
      case "a":
        return DAYS[date.getDay()]!.slice(0, 3);
      case "A":
        return DAYS[date.getDay()]!;
      case "b":
      case "h":
        return MONTHS[date.getMonth()]!.slice(0, 3);
      case "B":
        return MONTHS[date.getMonth()]!;
      case "w":
        return String(date.getDay());
      case "F":
        return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
      case "%":
        return "%";
      default:
        return whole;
    }
  });
}
