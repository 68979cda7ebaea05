/**
 * Responses request → Chat Completions request, validating as it goes.
 *
 * The translator is stateless. Anything that needs server-side state (`previous_response_id`,
 * `conversation`, `item_reference` items, `background`, stored prompts) is refused with a 400 that
 * says so, rather than silently dropping context the agent believes the model has seen.
 */
import { z } from "zod";
import type { ChatCompletionRequest, ChatMessage, Tool } from "../../../types/chat.js";
import { badRequestFromIssues, HttpError } from "../../errors.js";
import { check, type Issue, isRecord, mustBe, str } from "../sse.js";
import { convertInput } from "./input.js";
import { convertTools } from "./tools.js";

const RequestSchema = z.looseObject(
  {
    model: z.string(mustBe("a string")).optional(),
    input: z.union([z.string(), z.array(z.unknown())], {
      error: (iss) =>
        iss.input === undefined
          ? "required (this gateway is stateless: send the whole conversation as input)"
          : "must be a string or an array of input items",
    }),
    instructions: z.string(mustBe("a string")).nullish(),
    tools: z.array(z.unknown(), mustBe("an array of tools")).nullish(),
    tool_choice: z.unknown().optional(),
    parallel_tool_calls: z.boolean(mustBe("a boolean")).nullish(),
    max_output_tokens: z.number(mustBe("a positive integer")).int().positive().nullish(),
    temperature: z.number(mustBe("a number between 0 and 2")).min(0).max(2).nullish(),
    top_p: z.number(mustBe("a number in (0, 1]")).gt(0).max(1).nullish(),
    stream: z.boolean(mustBe("a boolean")).nullish(),
    text: z.looseObject({ format: z.unknown().optional() }, mustBe("an object")).nullish(),
    reasoning: z
      .looseObject({ effort: z.string(mustBe("a string")).nullish() }, mustBe("an object"))
      .nullish(),
    metadata: z.record(z.string(), z.string(), mustBe("an object of strings")).nullish(),
  },
  mustBe("a JSON object"),
);

/**
 * Validates a Responses API request body and translates it to a Chat Completions request.
 *
 * - `instructions` becomes a leading system message; `max_output_tokens` becomes `max_tokens`.
 * - `developer` messages become `system` ones, and the leading run of them (with `instructions`)
 *   one system message, their texts joined by a blank line: most open models' chat templates
 *   know no developer role (some drop it silently, some raise) and take one system message, at
 *   the start (vLLM folds Codex's developer messages the same way: vllm-project/vllm#43590).
 *   Later system messages stay where they are, so each turn's prompt still extends the last.
 * - Consecutive assistant-side items (reasoning, assistant messages, function calls) of one turn
 *   fold into one assistant message: reasoning into `reasoning_content`, text into `content`,
 *   calls into `tool_calls` (each `call_id` becoming the tool call's id).
 * - `function_call_output` items become `tool` messages.
 * - Function, custom and namespace tools become chat functions (tools.ts); hosted tools are
 *   refused: a chat upstream cannot run them.
 *
 * Throws HttpError 400 naming the offending field.
 */
export function responsesRequestToChat(body: unknown): ChatCompletionRequest {
  refuseStateful(body);
  const issues: Issue[] = [];
  const req = check(RequestSchema, body, [], issues);
  if (!req) throw badRequestFromIssues("Responses request", issues);

  const messages: ChatMessage[] = [];
  if (req.instructions) messages.push({ role: "system", content: req.instructions });
  if (typeof req.input === "string") {
    messages.push({ role: "user", content: req.input });
  } else {
    messages.push(...convertInput(req.input, issues));
    if (req.input.length === 0 && !req.instructions) {
      issues.push({ path: ["input"], message: "must hold at least one item" });
    }
  }

  const converted = req.tools ? convertTools(req.tools, issues) : undefined;
  let tools = converted?.tools;

  const out: ChatCompletionRequest = { messages: foldSystem(messages) };
  if (req.model !== undefined) out.model = req.model;

  const choice = convertToolChoice(req.tool_choice, tools, issues);
  if (choice.tools) tools = choice.tools;
  if (tools && tools.length > 0) out.tools = tools;
  if (choice.tool_choice !== undefined) out.tool_choice = choice.tool_choice;
  if (req.parallel_tool_calls != null) out.parallel_tool_calls = req.parallel_tool_calls;

  const format = convertTextFormat(req.text?.format, issues);
  if (format) out.response_format = format;

  if (req.max_output_tokens != null) out.max_tokens = req.max_output_tokens;
  if (req.temperature != null) out.temperature = req.temperature;
  if (req.top_p != null) out.top_p = req.top_p;
  if (req.reasoning?.effort) out.reasoning_effort = req.reasoning.effort;
  if (req.stream) {
    out.stream = true;
    // The final response carries usage, which a chat stream only reports when asked.
    out.stream_options = { include_usage: true };
  }

  if (issues.length > 0) throw badRequestFromIssues("Responses request", issues);
  return out;
}

/** developer → system, and the leading system messages folded into one (see above). */
function foldSystem(messages: ChatMessage[]): ChatMessage[] {
  const out = messages.map((m) => (m.role === "developer" ? { ...m, role: "system" as const } : m));
  const texts: string[] = [];
  let n = 0;
  for (const m of out) {
    const text = m.role === "system" ? textOnly(m.content) : undefined;
    if (text === undefined) break;
    texts.push(text);
    n++;
  }
  if (n < 2) return out;
  return [{ role: "system", content: texts.join("\n\n") }, ...out.slice(n)];
}

/** A message's content as text, when it holds nothing but text. */
function textOnly(content: ChatMessage["content"]): string | undefined {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return undefined;
  let text = "";
  for (const p of content) {
    if (p.type !== "text" || typeof p.text !== "string") return undefined;
    text += p.text;
  }
  return text;
}

/** Stateful features are refused first: their 400 is more useful than any shape error. */
function refuseStateful(body: unknown): void {
  if (!isRecord(body)) return;
  const refuse = (message: string): never => {
    throw new HttpError(400, message, "invalid_request_error", "unsupported_parameter");
  };
  if (body.previous_response_id != null) {
    refuse(
      "previous_response_id is not supported: this gateway is stateless and stores no responses; send the whole conversation in input",
    );
  }
  if (body.conversation != null) {
    refuse(
      "conversation is not supported: this gateway is stateless; send the whole conversation in input",
    );
  }
  if (body.background === true) {
    refuse(
      "background is not supported: this gateway is stateless and cannot be polled for a result",
    );
  }
  if (body.prompt != null) {
    refuse(
      "prompt (a stored prompt template) is not supported: send the instructions and input inline",
    );
  }
}

function convertToolChoice(
  raw: unknown,
  tools: Tool[] | undefined,
  issues: Issue[],
): { tool_choice?: unknown; tools?: Tool[] } {
  if (raw == null) return {};
  if (raw === "none" || raw === "auto" || raw === "required") return { tool_choice: raw };
  const type = str(raw, "type");
  // A custom tool is a chat function too (tools.ts).
  if (type === "function" || type === "custom") {
    const name = str(raw, "name");
    if (!name) {
      issues.push({ path: ["tool_choice", "name"], message: "required" });
      return {};
    }
    return { tool_choice: { type: "function", function: { name } } };
  }
  if (type === "allowed_tools" && isRecord(raw)) {
    const mode = raw.mode;
    if (mode !== "auto" && mode !== "required") {
      issues.push({ path: ["tool_choice", "mode"], message: "must be auto or required" });
      return {};
    }
    if (!Array.isArray(raw.tools)) {
      issues.push({ path: ["tool_choice", "tools"], message: "must be an array" });
      return {};
    }
    const allowed = new Set<string>();
    raw.tools.forEach((t, i) => {
      const name = str(t, "name");
      const refType = str(t, "type");
      if ((refType !== "function" && refType !== "custom") || !name) {
        issues.push({
          path: ["tool_choice", "tools", i],
          message:
            "must be a function or custom tool reference {type: 'function' | 'custom', name}",
        });
      } else allowed.add(name);
    });
    // Chat Completions has no portable "allowed tools"; narrowing the list has the same effect.
    return {
      tool_choice: mode,
      tools: (tools ?? []).filter((t) => allowed.has(t.function.name)),
    };
  }
  issues.push({
    path: ["tool_choice"],
    message:
      "must be none, auto, required, {type: 'function', name} or {type: 'allowed_tools', mode, tools}",
  });
  return {};
}

function convertTextFormat(raw: unknown, issues: Issue[]): unknown {
  if (raw == null) return undefined;
  const type = str(raw, "type");
  if (type === "text") return undefined;
  if (type === "json_object") return { type: "json_object" };
  if (type === "json_schema" && isRecord(raw)) {
    const name = str(raw, "name");
    if (!name) issues.push({ path: ["text", "format", "name"], message: "required" });
    if (!isRecord(raw.schema)) {
      issues.push({ path: ["text", "format", "schema"], message: "must be a JSON schema object" });
    }
    const json_schema: Record<string, unknown> = { name, schema: raw.schema };
    if (typeof raw.description === "string") json_schema.description = raw.description;
    if (typeof raw.strict === "boolean") json_schema.strict = raw.strict;
    return { type: "json_schema", json_schema };
  }
  issues.push({
    path: ["text", "format", "type"],
    message: "must be text, json_object or json_schema",
  });
  return undefined;
}
