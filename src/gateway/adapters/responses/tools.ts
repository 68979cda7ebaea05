/**
 * A Responses request's `tools` → chat function tools, and the map that turns a chat tool call
 * back into the Responses item the agent expects.
 *
 * The tools an agent runs itself are forwarded (OpenAI's shapes: `openai` npm client,
 * resources/responses/responses.d.ts — FunctionTool, CustomTool, Tool.LocalShell, NamespaceTool):
 * - `function`: as is.
 * - `custom` (freeform input, optionally constrained by a Lark or regex grammar; Codex's
 *   `apply_patch` on models trained for it): a chat function with one string parameter, `input`.
 *   The grammar cannot be enforced by a chat upstream; it goes into the parameter's description.
 *   A call comes back as a `custom_tool_call` whose `input` is that string (the raw arguments
 *   when they are not an object with a string `input`: the model wrote the input bare).
 * - `local_shell` (Codex's argv shell on models trained for it): a chat function `local_shell`
 *   taking `{command: string[], working_directory?, timeout_ms?}`; a call comes back as a
 *   `local_shell_call` whose `exec` action holds them (a `command` that is no string array becomes
 *   `[]`, which the agent reports back to the model as a failed command).
 * - `namespace` (a group of function/custom tools, e.g. Codex's `multi_agent_v1`): each member
 *   becomes a chat function named `<namespace>__<name>` (chat names allow only [A-Za-z0-9_-]); a
 *   call comes back with the member's own name and the item's `namespace` field set.
 *
 * Hosted tools (web_search, file_search, code_interpreter, …) are refused: a chat upstream cannot
 * run them and the agent would wait for results nobody produces. A flattened name that collides
 * with another tool's is refused too, since the call could not be routed back.
 */
import { z } from "zod";
import type { Tool } from "../../../types/chat.js";
import { check, type Issue, isRecord, mustBe, parseArgsObject, str } from "../sse.js";

/** What a chat function stands for on the Responses side. */
export interface ResponsesToolRef {
  kind: "function" | "custom" | "local_shell";
  /** The tool's own name (inside its namespace, if any). */
  name: string;
  namespace?: string;
}

/** Chat function name → the Responses tool it stands for. */
export type ToolMap = ReadonlyMap<string, ResponsesToolRef>;

/** Separator between a namespace and a member's name in the chat function name. */
export const NAMESPACE_SEPARATOR = "__";

const FunctionToolSchema = z.looseObject({
  type: z.literal("function"),
  name: z.string(mustBe("a string")).min(1, "must not be empty"),
  description: z.string(mustBe("a string")).nullish(),
  parameters: z.record(z.string(), z.unknown(), mustBe("a JSON schema object")).nullish(),
  strict: z.boolean(mustBe("a boolean")).nullish(),
});

const CustomToolSchema = z.looseObject({
  type: z.literal("custom"),
  name: z.string(mustBe("a string")).min(1, "must not be empty"),
  description: z.string(mustBe("a string")).nullish(),
  format: z
    .discriminatedUnion(
      "type",
      [
        z.looseObject({ type: z.literal("text") }),
        z.looseObject({
          type: z.literal("grammar"),
          syntax: z.enum(["lark", "regex"], mustBe("lark or regex")),
          definition: z.string(mustBe("a string")),
        }),
      ],
      mustBe("{type: 'text'} or {type: 'grammar', syntax, definition}"),
    )
    .nullish(),
});

const NamespaceToolSchema = z.looseObject({
  type: z.literal("namespace"),
  name: z.string(mustBe("a string")).regex(/^[A-Za-z0-9_-]+$/, "must match [A-Za-z0-9_-]+"),
  description: z.string(mustBe("a string")).nullish(),
  tools: z.array(z.unknown(), mustBe("an array of function or custom tools")),
});

/** The Responses tools translated: chat tools, and the map back. */
export interface ConvertedTools {
  tools: Tool[];
  map: ToolMap;
}

/** Validates and translates `tools`; problems go to `issues`. */
export function convertTools(raw: unknown[], issues: Issue[]): ConvertedTools {
  const tools: Tool[] = [];
  const map = new Map<string, ResponsesToolRef>();
  const add = (tool: Tool, ref: ResponsesToolRef, at: PropertyKey[]) => {
    const name = tool.function.name;
    if (map.has(name)) {
      issues.push({
        path: [...at, "name"],
        message: `'${name}' names two tools (a namespace member is sent as <namespace>${NAMESPACE_SEPARATOR}<name>); rename one`,
      });
      return;
    }
    map.set(name, ref);
    tools.push(tool);
  };
  raw.forEach((rawTool, i) => {
    const at = ["tools", i];
    const type = str(rawTool, "type");
    if (type === "namespace") {
      const ns = check(NamespaceToolSchema, rawTool, at, issues);
      if (!ns) return;
      ns.tools.forEach((member, j) => {
        const mat = [...at, "tools", j];
        const t = memberTool(member, mat, issues);
        if (!t) return;
        const ref = { ...t.ref, namespace: ns.name };
        const fn = { ...t.tool.function, name: chatToolName(ref) };
        // The namespace's description has no chat counterpart but is part of what the model sees.
        const description = [ns.description, fn.description].filter(Boolean).join("\n\n");
        if (description) fn.description = description;
        add({ type: "function", function: fn }, ref, mat);
      });
      return;
    }
    if (type === "local_shell") {
      add(structuredClone(LOCAL_SHELL_TOOL), { kind: "local_shell", name: LOCAL_SHELL }, at);
      return;
    }
    const t = memberTool(rawTool, at, issues, true);
    if (t) add(t.tool, t.ref, at);
  });
  return { tools, map };
}

/** A function or custom tool (top level, or inside a namespace). */
function memberTool(
  raw: unknown,
  at: PropertyKey[],
  issues: Issue[],
  topLevel = false,
): { tool: Tool; ref: ResponsesToolRef } | undefined {
  const type = str(raw, "type");
  if (type === "function") {
    const t = check(FunctionToolSchema, raw, at, issues);
    if (!t) return undefined;
    const fn: Tool["function"] = {
      name: t.name,
      // Chat upstreams render the schema into the prompt; an absent one still needs an object.
      parameters: t.parameters ?? { type: "object", properties: {} },
    };
    if (t.description) fn.description = t.description;
    if (typeof t.strict === "boolean") fn.strict = t.strict;
    return { tool: { type: "function", function: fn }, ref: { kind: "function", name: t.name } };
  }
  if (type === "custom") {
    const t = check(CustomToolSchema, raw, at, issues);
    if (!t) return undefined;
    let inputHelp = "The tool's input, as free text.";
    if (t.format?.type === "grammar") {
      inputHelp = `The tool's input, as free text that must match this ${t.format.syntax} grammar:\n${t.format.definition}`;
    }
    const fn: Tool["function"] = {
      name: t.name,
      parameters: {
        type: "object",
        properties: { input: { type: "string", description: inputHelp } },
        required: ["input"],
        additionalProperties: false,
      },
    };
    if (t.description) fn.description = t.description;
    return { tool: { type: "function", function: fn }, ref: { kind: "custom", name: t.name } };
  }
  issues.push({
    path: [...at, "type"],
    message:
      type === undefined
        ? "required"
        : topLevel
          ? `'${type}' tools are not supported; a Chat Completions upstream can only be given function, custom, local_shell and namespace tools (hosted tools such as web_search run only on OpenAI's servers: remove them${type === "web_search" ? '; Codex: web_search = "disabled" in config.toml' : ""})`
          : `'${type}' tools are not supported inside a namespace (use function or custom)`,
  });
  return undefined;
}

/** The chat function a `local_shell` tool becomes. */
export const LOCAL_SHELL = "local_shell";
const LOCAL_SHELL_TOOL: Tool = {
  type: "function",
  function: {
    name: LOCAL_SHELL,
    description: "Runs a command on the local machine and returns its output.",
    parameters: {
      type: "object",
      properties: {
        command: {
          type: "array",
          items: { type: "string" },
          description: "The command and its arguments (argv).",
        },
        working_directory: { type: "string", description: "The directory to run it in." },
        timeout_ms: { type: "integer", description: "How long it may run, in milliseconds." },
      },
      required: ["command"],
    },
  },
};

/** A local_shell_call's exec action from the chat call's arguments (see the header). */
export function localShellAction(args: string): {
  type: "exec";
  command: string[];
  env: Record<string, string>;
  working_directory?: string;
  timeout_ms?: number;
} {
  const o = parseArgsObject(args) ?? {};
  const command =
    Array.isArray(o.command) && o.command.every((c) => typeof c === "string")
      ? (o.command as string[])
      : [];
  const action: ReturnType<typeof localShellAction> = { type: "exec", command, env: {} };
  if (typeof o.working_directory === "string") action.working_directory = o.working_directory;
  if (typeof o.timeout_ms === "number") action.timeout_ms = o.timeout_ms;
  return action;
}

/** The chat function name of a Responses tool. */
export function chatToolName(ref: { name: string; namespace?: string | undefined }): string {
  return ref.namespace ? `${ref.namespace}${NAMESPACE_SEPARATOR}${ref.name}` : ref.name;
}

/**
 * The tool map of a request that was already validated (responsesRequestToChat), rebuilt where
 * the response is shaped. Tools that failed validation are simply absent.
 */
export function toolMapOf(request: unknown): ToolMap {
  const raw = isRecord(request) && Array.isArray(request.tools) ? request.tools : [];
  return convertTools(raw, []).map;
}

/** The `input` of a custom tool call, from the chat call's arguments (see the header). */
export function customInput(args: string): string {
  const o = parseArgsObject(args);
  return o && typeof o.input === "string" ? o.input : args;
}
