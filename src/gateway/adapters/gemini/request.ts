/**
 * Gemini `generateContent` / `streamGenerateContent` request → Chat Completions request, validating
 * as it goes. The request body is the public reference's GenerateContentRequest
 * (https://ai.google.dev/api/generate-content#request-body; Content and Part:
 * https://ai.google.dev/api/caching#Content; Tool, FunctionDeclaration, ToolConfig:
 * https://ai.google.dev/api/caching#Tool; GenerationConfig:
 * https://ai.google.dev/api/generate-content#generationconfig). The model comes from the URL.
 *
 * Decided here:
 * - `systemInstruction` becomes a leading system message (its text parts joined).
 * - A `user` turn's text and inline images become user messages; each `functionResponse` part a
 *   `tool` message, in order. A `model` turn becomes one assistant message: `thought` text into
 *   `reasoning_content`, other text into `content`, `functionCall` parts into `tool_calls`.
 * - Call ids: a functionCall's `id` when it has one (this gateway always sends one), else
 *   `call_<n>` by its position among the conversation's calls; a functionResponse answers the call
 *   with its `id`, else the earliest unanswered call of its `name`. A response that answers no
 *   call is a 400.
 * - A functionResponse's `response` object is the tool message's content as JSON, except
 *   `{output: "<text>"}` (what Gemini CLI sends), which is the text itself.
 * - Function parameters: `parametersJsonSchema` as is; `parameters` (the API's OpenAPI-subset
 *   Schema, types in upper case) converted to JSON Schema (types lower-cased, `nullable` as a
 *   `"null"` type, `propertyOrdering` dropped).
 * - `toolConfig.functionCallingConfig.mode`: AUTO → auto, NONE → none, ANY → required (one allowed
 *   name → that function), VALIDATED → auto (a chat upstream has no schema-validated mode);
 *   `allowedFunctionNames` narrows the tools.
 * - Refused with a 400 naming the field: hosted tools (googleSearch, codeExecution, urlContext,
 *   …: a chat upstream cannot run them), `cachedContent` (server-side state), `fileData` parts
 *   (a URI the gateway would have to fetch), code-execution parts, `candidateCount` > 1 (the
 *   translation reads choice 0 only).
 * - A model turn without thought parts gets its reasoning back from a `thoughtSignature` this
 *   gateway issued (response.ts); other signatures are ignored (opaque to a chat model).
 * - Ignored: `safetySettings` (no safety filter runs upstream), `thinkingConfig` (whether a model
 *   thinks is the model's).
 */
import { z } from "zod";
import type {
  ChatCompletionRequest,
  ChatMessage,
  ContentPart,
  Tool,
  ToolCall,
} from "../../../types/chat.js";
import { badRequestFromIssues, HttpError } from "../../errors.js";
import { check, type Issue, isRecord, mustBe } from "../sse.js";
import { reasoningFromSignature } from "./response.js";

const PartSchema = z.looseObject({
  text: z.string(mustBe("a string")).optional(),
  thought: z.boolean(mustBe("a boolean")).optional(),
  thoughtSignature: z.string(mustBe("a string")).optional(),
  inlineData: z
    .looseObject({ mimeType: z.string(mustBe("a string")), data: z.string(mustBe("a string")) })
    .optional(),
  functionCall: z
    .looseObject({
      name: z.string(mustBe("a string")).min(1, "must not be empty"),
      args: z.record(z.string(), z.unknown(), mustBe("an object")).nullish(),
      id: z.string(mustBe("a string")).nullish(),
    })
    .optional(),
  functionResponse: z
    .looseObject({
      name: z.string(mustBe("a string")),
      response: z.record(z.string(), z.unknown(), mustBe("an object")),
      id: z.string(mustBe("a string")).nullish(),
    })
    .optional(),
});
type Part = z.infer<typeof PartSchema>;

const ContentSchema = z.looseObject({
  role: z.enum(["user", "model"], mustBe("user or model")).optional(),
  parts: z.array(z.unknown(), mustBe("an array of parts")),
});

const RequestSchema = z.looseObject(
  {
    contents: z
      .array(z.unknown(), mustBe("an array of Content objects"))
      .min(1, "must hold at least one Content"),
    systemInstruction: ContentSchema.optional(),
    tools: z.array(z.unknown(), mustBe("an array of tools")).optional(),
    toolConfig: z
      .looseObject({
        functionCallingConfig: z
          .looseObject({
            mode: z
              .enum(["AUTO", "ANY", "NONE", "VALIDATED", "MODE_UNSPECIFIED"], {
                error: () => "must be AUTO, ANY, NONE or VALIDATED",
              })
              .optional(),
            allowedFunctionNames: z.array(z.string(), mustBe("an array of names")).optional(),
          })
          .optional(),
      })
      .optional(),
    generationConfig: z
      .looseObject({
        temperature: z.number(mustBe("a number between 0 and 2")).min(0).max(2).optional(),
        topP: z.number(mustBe("a number in (0, 1]")).gt(0).max(1).optional(),
        topK: z.number(mustBe("an integer")).int().optional(),
        maxOutputTokens: z.number(mustBe("a positive integer")).int().positive().optional(),
        stopSequences: z.array(z.string(), mustBe("an array of strings")).optional(),
        candidateCount: z.literal(1, "must be 1 (this gateway returns one candidate)").optional(),
        seed: z.number(mustBe("an integer")).int().optional(),
        presencePenalty: z.number(mustBe("a number")).optional(),
        frequencyPenalty: z.number(mustBe("a number")).optional(),
        responseMimeType: z.string(mustBe("a string")).optional(),
        responseSchema: z.record(z.string(), z.unknown(), mustBe("a Schema object")).optional(),
        responseJsonSchema: z
          .record(z.string(), z.unknown(), mustBe("a JSON schema object"))
          .optional(),
      })
      .optional(),
  },
  mustBe("a JSON object"),
);

const DeclarationSchema = z.looseObject({
  name: z.string(mustBe("a string")).min(1, "must not be empty"),
  description: z.string(mustBe("a string")).optional(),
  parameters: z.record(z.string(), z.unknown(), mustBe("a Schema object")).optional(),
  parametersJsonSchema: z
    .record(z.string(), z.unknown(), mustBe("a JSON schema object"))
    .optional(),
});

/** Where a request goes: the model named in the URL, and whether it is streamed. */
export interface GeminiCall {
  model: string;
  stream: boolean;
}

/** Validates a Gemini request and translates it; throws HttpError 400 naming the field. */
export function geminiRequestToChat(body: unknown, call: GeminiCall): ChatCompletionRequest {
  if (isRecord(body) && body.cachedContent != null) {
    throw new HttpError(
      400,
      "cachedContent is not supported: this gateway is stateless; send the whole conversation in contents",
    );
  }
  const issues: Issue[] = [];
  const req = check(RequestSchema, body, [], issues);
  if (!req) throw badRequestFromIssues("Gemini request", issues);

  const messages: ChatMessage[] = [];
  if (req.systemInstruction) {
    const text = textOf(req.systemInstruction.parts, ["systemInstruction", "parts"], issues);
    if (text) messages.push({ role: "system", content: text });
  }
  messages.push(...convertContents(req.contents, issues));

  const out: ChatCompletionRequest = { model: call.model, messages };
  const tools = req.tools ? convertTools(req.tools, issues) : [];
  const choice = convertToolConfig(req.toolConfig?.functionCallingConfig, tools, issues);
  if (choice.tools.length > 0) out.tools = choice.tools;
  if (choice.tool_choice !== undefined) out.tool_choice = choice.tool_choice;

  const g = req.generationConfig;
  if (g) {
    if (g.temperature !== undefined) out.temperature = g.temperature;
    if (g.topP !== undefined) out.top_p = g.topP;
    if (g.topK !== undefined) out.top_k = g.topK;
    if (g.maxOutputTokens !== undefined) out.max_tokens = g.maxOutputTokens;
    if (g.stopSequences?.length) out.stop = g.stopSequences;
    if (g.seed !== undefined) out.seed = g.seed;
    if (g.presencePenalty !== undefined) out.presence_penalty = g.presencePenalty;
    if (g.frequencyPenalty !== undefined) out.frequency_penalty = g.frequencyPenalty;
    const schema = g.responseJsonSchema ?? (g.responseSchema && toJsonSchema(g.responseSchema));
    if (schema) {
      out.response_format = {
        type: "json_schema",
        json_schema: { name: "response", schema },
      };
    } else if (g.responseMimeType === "application/json") {
      out.response_format = { type: "json_object" };
    }
  }
  if (call.stream) {
    out.stream = true;
    // The last chunk carries usageMetadata, which a chat stream only reports when asked.
    out.stream_options = { include_usage: true };
  }
  if (issues.length > 0) throw badRequestFromIssues("Gemini request", issues);
  return out;
}

/** Calls of model turns, by id, for pairing function responses. */
interface CallLedger {
  count: number;
  /** Calls not answered yet, in order. */
  open: ToolCall[];
}

function convertContents(contents: unknown[], issues: Issue[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  const ledger: CallLedger = { count: 0, open: [] };
  contents.forEach((raw, i) => {
    const at = ["contents", i];
    const c = check(ContentSchema, raw, at, issues);
    if (!c) return;
    const parts: Part[] = [];
    c.parts.forEach((p, j) => {
      const part = checkPart(p, [...at, "parts", j], issues);
      if (part) parts.push(part);
    });
    if (c.role === "model") out.push(modelTurn(parts, ledger, [...at, "parts"], issues));
    else out.push(...userTurn(parts, ledger, [...at, "parts"], issues));
  });
  return out;
}

/** A part with exactly one kind of data this gateway translates. */
function checkPart(raw: unknown, at: PropertyKey[], issues: Issue[]): Part | undefined {
  const p = check(PartSchema, raw, at, issues);
  if (!p) return undefined;
  const kinds = ["text", "inlineData", "functionCall", "functionResponse"].filter(
    (k) => p[k as keyof Part] !== undefined,
  );
  if (kinds.length === 1) return p;
  const unsupported = ["fileData", "executableCode", "codeExecutionResult"].find(
    (k) => isRecord(raw) && raw[k] !== undefined,
  );
  issues.push({
    path: unsupported ? [...at, unsupported] : at,
    message: unsupported
      ? `${unsupported} parts are not supported (send the data inline: text or inlineData)`
      : kinds.length === 0
        ? "must hold text, inlineData, functionCall or functionResponse"
        : `must hold one kind of data, not ${kinds.join(" and ")}`,
  });
  return undefined;
}

function modelTurn(
  parts: Part[],
  ledger: CallLedger,
  at: PropertyKey[],
  issues: Issue[],
): ChatMessage {
  const m: ChatMessage = { role: "assistant", content: null };
  let text = "";
  let reasoning = "";
  let signed: string | undefined;
  parts.forEach((p, j) => {
    if (p.thoughtSignature) signed ??= reasoningFromSignature(p.thoughtSignature);
    if (p.text !== undefined) {
      if (p.thought) reasoning += p.text;
      else text += p.text;
    } else if (p.functionCall) {
      const fc = p.functionCall;
      const call: ToolCall = {
        id: fc.id || `call_${ledger.count}`,
        type: "function",
        function: { name: fc.name, arguments: JSON.stringify(fc.args ?? {}) },
      };
      ledger.count++;
      ledger.open.push(call);
      m.tool_calls ??= [];
      m.tool_calls.push(call);
    } else {
      issues.push({ path: [...at, j], message: "a model turn holds text and functionCall parts" });
    }
  });
  if (text) m.content = text;
  if (reasoning || signed) m.reasoning_content = reasoning || signed;
  return m;
}

function userTurn(
  parts: Part[],
  ledger: CallLedger,
  at: PropertyKey[],
  issues: Issue[],
): ChatMessage[] {
  const out: ChatMessage[] = [];
  let pending: ContentPart[] = [];
  const flush = () => {
    if (pending.length > 0) out.push({ role: "user", content: pending });
    pending = [];
  };
  parts.forEach((p, j) => {
    if (p.text !== undefined) pending.push({ type: "text", text: p.text });
    else if (p.inlineData) {
      const { mimeType, data } = p.inlineData;
      if (!mimeType.startsWith("image/")) {
        issues.push({
          path: [...at, j, "inlineData", "mimeType"],
          message: `'${mimeType}' is not supported inline (images only: a chat upstream takes image data URLs)`,
        });
        return;
      }
      pending.push({ type: "image_url", image_url: { url: `data:${mimeType};base64,${data}` } });
    } else if (p.functionResponse) {
      flush();
      const fr = p.functionResponse;
      const k = fr.id
        ? ledger.open.findIndex((c) => c.id === fr.id)
        : ledger.open.findIndex((c) => c.function.name === fr.name);
      if (k < 0) {
        issues.push({
          path: [...at, j, "functionResponse"],
          message: `answers no earlier functionCall (${fr.id ? `id '${fr.id}'` : `name '${fr.name}'`})`,
        });
        return;
      }
      const [answered] = ledger.open.splice(k, 1);
      out.push({ role: "tool", tool_call_id: answered!.id, content: responseText(fr.response) });
    } else {
      issues.push({
        path: [...at, j],
        message: "a user turn holds text, inlineData and functionResponse parts",
      });
    }
  });
  flush();
  return out;
}

/** `{output: "<text>"}` is the text; any other response object is its JSON. */
function responseText(response: Record<string, unknown>): string {
  const keys = Object.keys(response);
  if (keys.length === 1 && typeof response.output === "string") return response.output;
  return JSON.stringify(response);
}

/** The text of a Content's parts (systemInstruction). */
function textOf(parts: unknown[], at: PropertyKey[], issues: Issue[]): string {
  return parts
    .map((p, j) => {
      const text = isRecord(p) ? p.text : undefined;
      if (typeof text === "string") return text;
      issues.push({ path: [...at, j, "text"], message: "required (system instructions are text)" });
      return "";
    })
    .join("\n");
}

function convertTools(raw: unknown[], issues: Issue[]): Tool[] {
  const tools: Tool[] = [];
  raw.forEach((tool, i) => {
    const at = ["tools", i];
    if (!isRecord(tool)) {
      issues.push({ path: at, message: "must be a Tool object" });
      return;
    }
    for (const key of Object.keys(tool)) {
      if (key === "functionDeclarations") continue;
      issues.push({
        path: [...at, key],
        message: `'${key}' tools are not supported: a Chat Completions upstream can only be given functionDeclarations (hosted tools run only on Google's servers)`,
      });
    }
    const decls = tool.functionDeclarations;
    if (decls === undefined) return;
    if (!Array.isArray(decls)) {
      issues.push({ path: [...at, "functionDeclarations"], message: "must be an array" });
      return;
    }
    decls.forEach((d, j) => {
      const dat = [...at, "functionDeclarations", j];
      const f = check(DeclarationSchema, d, dat, issues);
      if (!f) return;
      if (f.parameters && f.parametersJsonSchema) {
        issues.push({
          path: [...dat, "parametersJsonSchema"],
          message: "give parameters or parametersJsonSchema, not both",
        });
        return;
      }
      const parameters = f.parametersJsonSchema ??
        (f.parameters && (toJsonSchema(f.parameters) as Record<string, unknown>)) ?? {
          type: "object",
          properties: {},
        };
      const fn: Tool["function"] = { name: f.name, parameters };
      if (f.description) fn.description = f.description;
      tools.push({ type: "function", function: fn });
    });
  });
  return tools;
}

/** The API's OpenAPI-subset Schema → JSON Schema (see the header). */
export function toJsonSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toJsonSchema);
  if (!isRecord(schema)) return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === "propertyOrdering" || k === "nullable") continue;
    if (k === "type" && typeof v === "string") out.type = v.toLowerCase();
    else if (k === "properties" && isRecord(v)) {
      out.properties = Object.fromEntries(
        Object.entries(v).map(([name, s]) => [name, toJsonSchema(s)]),
      );
    } else if (k === "items" || k === "anyOf") out[k] = toJsonSchema(v);
    else out[k] = v;
  }
  if (schema.nullable === true && typeof out.type === "string") out.type = [out.type, "null"];
  return out;
}

function convertToolConfig(
  config: { mode?: string | undefined; allowedFunctionNames?: string[] | undefined } | undefined,
  tools: Tool[],
  issues: Issue[],
): { tools: Tool[]; tool_choice?: unknown } {
  if (!config) return { tools };
  const allowed = config.allowedFunctionNames;
  const declared = new Set(tools.map((t) => t.function.name));
  allowed?.forEach((name, i) => {
    if (declared.has(name)) return;
    issues.push({
      path: ["toolConfig", "functionCallingConfig", "allowedFunctionNames", i],
      message: `'${name}' is not a declared function`,
    });
  });
  const narrowed = allowed ? tools.filter((t) => allowed.includes(t.function.name)) : tools;
  switch (config.mode) {
    case "NONE":
      return { tools, tool_choice: "none" };
    case "ANY":
      if (narrowed.length === 1) {
        return {
          tools: narrowed,
          tool_choice: { type: "function", function: { name: narrowed[0]!.function.name } },
        };
      }
      return { tools: narrowed, tool_choice: "required" };
    case "AUTO":
    case "VALIDATED":
      return { tools: narrowed, tool_choice: "auto" };
    default:
      return { tools: narrowed };
  }
}
