/**
 * Curating an eval run's episodes into SFT rows (`rllm dataset from-eval`), as rLLM's eval →
 * curate → SFT loop does: keep the episodes a filter accepts, and turn each kept trajectory into
 * one `{messages}` row that `rllm sft` reads (trainer/sft.ts).
 *
 * The filter is a small expression language, parsed here and never evaluated as code:
 *
 *   expr  := or
 *   or    := and ("||" and)*
 *   and   := unary ("&&" unary)*
 *   unary := "!" unary | "(" expr ")" | cmp
 *   cmp   := value (("==" | "!=" | ">=" | "<=" | ">" | "<") value)?
 *   value := FIELD | NUMBER | "string" | true | false | null
 *
 * Fields (an unknown one is an error): reward, isCorrect, infraFailed, terminationReason, error,
 * attempt, taskId, index (the task's row), steps (LLM calls over all trajectories), and
 * metrics.NAME. A value alone is a truth test (`isCorrect`, `!infraFailed`). `<`-style comparisons
 * are between numbers; a null side (an unscored reward, an absent metric) makes them false, never
 * an error. `==`/`!=` compare values exactly (`reward == null` finds the unscored).
 * Errors say what was expected and point at the column. A comparison whose sides can never be
 * alike is an error, not a silently empty output: each field has one type (isCorrect and
 * infraFailed booleans; terminationReason, error and taskId strings; the rest numbers), `==`/`!=`
 * need the same type on both sides or a null one, `<`-style need numbers.
 *
 * An infra-failed episode (unscored: its judge was down — not a wrong answer) passes only a
 * filter that names `infraFailed`; an errored one (the agent threw: no finished answer) only one
 * that names `terminationReason` or `error`. So `!isCorrect` finds wrong answers, not outages.
 *
 * A row: the last step of a trajectory, its messages as sent (system, user, and in a multi-turn
 * run the earlier assistant turns with their tool calls and the tool results) followed by the
 * assistant's final response (its text and tool calls; its reasoning is left out). A trajectory
 * without a step, whose last step's messages hold no prompt, or whose final response is empty,
 * gives no row.
 */
import type { ChatMessage, Episode, Tool } from "../types/index.js";

type Value = number | string | boolean | null;

type Node =
  | { kind: "literal"; value: Value }
  | { kind: "field"; name: string }
  | { kind: "not"; operand: Node }
  | { kind: "and" | "or"; left: Node; right: Node }
  | { kind: "cmp"; op: string; left: Node; right: Node };

export class FilterError extends Error {
  override name = "FilterError";
  constructor(expr: string, column: number, problem: string) {
    super(`bad filter at column ${column + 1}: ${problem}\n  ${expr}\n  ${" ".repeat(column)}^`);
  }
}

type FieldType = "number" | "boolean" | "string";

/** Each field's type (null aside): what a comparison's other side must be. */
const FIELD_TYPES: Record<string, FieldType> = {
  reward: "number",
  isCorrect: "boolean",
  infraFailed: "boolean",
  terminationReason: "string",
  error: "string",
  attempt: "number",
  taskId: "string",
  index: "number",
  steps: "number",
};
const FIELDS = Object.keys(FIELD_TYPES);

interface Token {
  text: string;
  at: number;
  kind: "op" | "number" | "string" | "word" | "end";
  value?: Value;
}

function tokenize(expr: string): Token[] {
  const tokens: Token[] = [];
  const re =
    /\s*(?:(&&|\|\||==|!=|>=|<=|[><!()])|(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)|"((?:[^"\\]|\\.)*)"|([A-Za-z_][A-Za-z0-9_.]*))/y;
  let at = 0;
  while (at < expr.length) {
    if (/^\s*$/.test(expr.slice(at))) break;
    re.lastIndex = at;
    const m = re.exec(expr);
    if (!m) {
      const col = at + (expr.slice(at).length - expr.slice(at).trimStart().length);
      throw new FilterError(expr, col, `unexpected "${expr[col]}"`);
    }
    const start = m.index + m[0].length - m[0].trimStart().length;
    if (m[1] !== undefined) tokens.push({ text: m[1], at: start, kind: "op" });
    else if (m[2] !== undefined)
      tokens.push({ text: m[2], at: start, kind: "number", value: Number(m[2]) });
    else if (m[3] !== undefined) tokens.push(stringToken(expr, m[0].trim(), m[3], start));
    else tokens.push({ text: m[4]!, at: start, kind: "word" });
    at = re.lastIndex;
  }
  tokens.push({ text: "", at: expr.length, kind: "end" });
  return tokens;
}

/** A string literal: JSON's escapes; another escape or a raw control character is a FilterError. */
function stringToken(expr: string, text: string, body: string, at: number): Token {
  try {
    return { text, at, kind: "string", value: JSON.parse(`"${body}"`) as string };
  } catch {
    throw new FilterError(
      expr,
      at,
      `bad string ${text}: use JSON's escapes (\\" \\\\ \\n \\t \\uXXXX) and no raw control characters`,
    );
  }
}

const COMPARISONS = ["==", "!=", ">=", "<=", ">", "<"];

/** The type of one side of a comparison, and how an error names it; null for a null literal. */
function sideType(node: Node): { type: FieldType | null; name: string } {
  if (node.kind === "field") return { type: FIELD_TYPES[node.name] ?? "number", name: node.name }; // metrics.NAME: numbers
  if (node.kind === "literal") {
    const v = node.value;
    return { type: v === null ? null : (typeof v as FieldType), name: JSON.stringify(v) };
  }
  return { type: null, name: "" }; // not reached: comparisons are between values
}

/** The module comment's type rule; throws FilterError at the operator. */
function checkTypes(left: Node, op: Token, right: Node, fail: (t: Token, p: string) => never) {
  const a = sideType(left);
  const b = sideType(right);
  if (op.text === "==" || op.text === "!=") {
    if (a.type !== null && b.type !== null && a.type !== b.type)
      fail(op, `${a.name} is a ${a.type} and ${b.name} a ${b.type}: they are never equal`);
    return;
  }
  for (const side of [a, b])
    if (side.type !== "number")
      fail(
        op,
        `"${op.text}" compares numbers; ${side.name} is ${side.type ? `a ${side.type}` : "null"}`,
      );
}

/** Parses a filter expression (grammar in the module comment); throws FilterError. */
export function parseFilter(expr: string): (episode: Episode) => boolean {
  const tokens = tokenize(expr);
  let i = 0;
  const peek = () => tokens[i]!;
  const fail = (token: Token, problem: string): never => {
    throw new FilterError(expr, token.at, problem);
  };
  const expect = (text: string) => {
    if (peek().text !== text || peek().kind !== "op")
      fail(peek(), `expected "${text}", found ${describe(peek())}`);
    i++;
  };
  const named = new Set<string>();
  const value = (): Node => {
    const t = peek();
    i++;
    if (t.kind === "number" || t.kind === "string") return { kind: "literal", value: t.value! };
    if (t.kind === "word") {
      if (t.text === "true" || t.text === "false")
        return { kind: "literal", value: t.text === "true" };
      if (t.text === "null") return { kind: "literal", value: null };
      const known = FIELDS.includes(t.text) || /^metrics\.\w+$/.test(t.text);
      if (!known)
        fail(t, `unknown field "${t.text}"; fields are ${FIELDS.join(", ")} and metrics.NAME`);
      named.add(t.text);
      return { kind: "field", name: t.text };
    }
    return fail(t, `expected a field or a value, found ${describe(t)}`);
  };
  const unary = (): Node => {
    const t = peek();
    if (t.kind === "op" && t.text === "!") {
      i++;
      return { kind: "not", operand: unary() };
    }
    if (t.kind === "op" && t.text === "(") {
      i++;
      const inner = or();
      expect(")");
      return inner;
    }
    const left = value();
    const op = peek();
    if (op.kind === "op" && COMPARISONS.includes(op.text)) {
      i++;
      const right = value();
      checkTypes(left, op, right, fail);
      return { kind: "cmp", op: op.text, left, right };
    }
    return left;
  };
  const chain = (kind: "and" | "or", text: string, next: () => Node) => (): Node => {
    let left = next();
    while (peek().kind === "op" && peek().text === text) {
      i++;
      left = { kind, left, right: next() };
    }
    return left;
  };
  const and = chain("and", "&&", unary);
  const or = chain("or", "||", and);
  const tree = or();
  if (peek().kind !== "end")
    fail(peek(), `expected "&&", "||" or the end, found ${describe(peek())}`);
  const asksInfra = named.has("infraFailed");
  const asksErrors = named.has("terminationReason") || named.has("error");
  return (episode) =>
    (asksInfra || !episode.infraFailed) &&
    (asksErrors || episode.terminationReason !== "error") &&
    truthy(evaluate(tree, episode));
}

function describe(t: Token): string {
  return t.kind === "end" ? "the end" : `"${t.text}"`;
}

function truthy(v: Value): boolean {
  return v !== null && v !== false && v !== 0 && v !== "";
}

function stepCount(episode: Episode): number {
  return episode.trajectories.reduce((n, t) => n + t.steps.length, 0);
}

function fieldOf(episode: Episode, name: string): Value {
  if (name.startsWith("metrics.")) {
    const metrics = episode.metrics ?? {};
    const key = name.slice(8);
    return Object.hasOwn(metrics, key) ? (metrics[key] ?? null) : null; // not Object.prototype's
  }
  switch (name) {
    case "reward":
      return episode.infraFailed ? null : (episode.reward ?? null);
    case "isCorrect":
      return !episode.infraFailed && episode.isCorrect === true;
    case "infraFailed":
      return episode.infraFailed;
    case "terminationReason":
      return episode.terminationReason;
    case "error":
      return episode.error ?? null;
    case "attempt":
      return episode.attempt;
    case "taskId":
      return episode.taskId;
    case "index":
      return episode.task?.index ?? null;
    default:
      return stepCount(episode);
  }
}

function evaluate(node: Node, episode: Episode): Value {
  switch (node.kind) {
    case "literal":
      return node.value;
    case "field":
      return fieldOf(episode, node.name);
    case "not":
      return !truthy(evaluate(node.operand, episode));
    case "and":
      return truthy(evaluate(node.left, episode)) && truthy(evaluate(node.right, episode));
    case "or":
      return truthy(evaluate(node.left, episode)) || truthy(evaluate(node.right, episode));
    case "cmp": {
      const a = evaluate(node.left, episode);
      const b = evaluate(node.right, episode);
      if (node.op === "==") return a === b;
      if (node.op === "!=") return a !== b;
      if (typeof a !== "number" || typeof b !== "number") return false;
      if (node.op === ">=") return a >= b;
      if (node.op === "<=") return a <= b;
      return node.op === ">" ? a > b : a < b;
    }
  }
}

/** One SFT row (trainer/sft.ts reads `{messages, tools?}`). */
export interface SftRow {
  messages: ChatMessage[];
  tools?: Tool[];
}

/**
 * The SFT rows of an episode: one per trajectory with a final response (module comment).
 * `toolsOf(traceId)`: the tools the last call offered the model (the gateway's trace of it), kept
 * with the row so that it is rendered as the model saw it.
 */
export function episodeSftRows(
  episode: Episode,
  toolsOf?: (traceId: string) => Tool[] | undefined,
): SftRow[] {
  const rows: SftRow[] = [];
  for (const trajectory of episode.trajectories) {
    const last = trajectory.steps.at(-1);
    const response = last?.response;
    if (!last || !response || !last.messages.some((m) => m.role !== "assistant")) continue;
    const text = response.content ?? "";
    const calls = response.toolCalls ?? [];
    if (text.trim() === "" && calls.length === 0) continue;
    const answer: ChatMessage = { role: "assistant", content: text };
    if (calls.length > 0) answer.tool_calls = calls;
    const tools = last.traceId !== undefined ? toolsOf?.(last.traceId) : undefined;
    const messages = [...(last.messages as ChatMessage[]), answer];
    rows.push(tools && tools.length > 0 ? { messages, tools } : { messages });
  }
  return rows;
}
