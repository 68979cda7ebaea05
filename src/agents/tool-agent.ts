/**
 * The built-in tool-calling agent: a ReAct loop over Chat Completions tool calls, whose tools
 * (tools.ts: bash, read_file, write_file, submit) run in a sandbox of its own per episode, with
 * the tools of any MCP servers given as `mcpServers` beside them (mcp.ts: they run on the host).
 *
 *   const agent = toolAgent({ maxTurns: 20 })       // a Rollout, like chatAgent()
 *
 * One episode: open the task's environment (environment.ts: a sandbox from `sandboxes`, default
 * the process's shared pool, with the task's files; for a Harbor task its WORKDIR, fixed paths and
 * verifier) → loop { one LLM call with the tools → run its tool calls in order, each answered by a
 * tool message }, commands starting in the environment's cwd → the task's verifier, when it has
 * one → release the environment (always: also on an error, a throw or an abort).
 *
 * The task: the environment's instruction (`task.data.instruction` or `question`; a Harbor task's
 * instruction.md) is the user message; `task.data.files`, an optional object of relative path →
 * text, is the work dir a plain task starts with.
 *
 * The verifier runs after every ending the agent reached itself (submit, a limit, an error) and
 * not after the engine's abort; its result is `info.verifier` (a VerifierResult: the reward the
 * harbor evaluator gives), or `info.verifierError` when it produced no reward.
 *
 * How it ends, as terminationReason (and `info.toolAgent.endedBy`):
 *   env_done                      `submit` was called (its answer is `info.answer`, which
 *                                 finalResponse() hands the grader), or the model answered
 *                                 without a tool call (that text is the answer, as in the
 *                                 OpenAI Agents SDK and the AI SDK's loops)
 *   max_turns_exceeded            `maxTurns` LLM calls and no submit
 *   max_response_length_exceeded  the completion tokens of all calls reached `maxCompletionTokens`
 *   timeout                       `maxSeconds` of wall time passed, or the task environment's
 *                                 shorter timeoutSec (Harbor's [agent].timeout_sec); a running
 *                                 call or command is aborted
 *   error                         the model call was refused (4xx), the task is malformed, or
 *                                 the sandbox could not be had or ended; `info.error` says what
 * A 5xx or a lost connection is thrown instead (AgentHttpError / the fetch error): the engine
 * counts it as an infrastructure failure and retries, never as the model's error. An abort of the
 * engine's signal (its own timeout, a hard cancel) is thrown too; the engine records it.
 *
 * A refusal saying the prompt no longer fits the model's context ends it as
 * max_prompt_length_exceeded (sdk's isPromptTooLong, the engine's rule too).
 *
 * Steps: each LLM call is one Step carrying only the trace id the gateway returned
 * (`x-rllm-trace-id`) and `info` (the tools it called); the engine fills the messages, token ids
 * and logprobs from the trace (engine/episode.ts joins by id) and marks a step whose prompt does
 * not extend the previous turn's tokens. Counters go to `info.toolAgent` (turns, toolCalls,
 * invalidToolCalls, failedToolCalls, completionTokens, sandboxSeconds: the time in tool calls, MCP
 * ones included) and, but for the tokens the engine counts itself, to the episode's metrics.
 */
import { request } from "undici";
import { z } from "zod";
import type { SandboxSource } from "../sandbox/shared.js";
import { sharedSandboxes } from "../sandbox/shared.js";
import {
  AgentHttpError,
  isPromptTooLong,
  type Rollout,
  type RolloutConfig,
  rollout,
} from "../sdk/index.js";
import type { ChatMessage, StepInput, Task, TerminationReason, ToolCall } from "../types/index.js";
import {
  openTaskEnvironment,
  runVerifier,
  type TaskEnvironment,
  type Verified,
} from "./environment.js";
import { McpServers, McpServersSchema } from "./mcp.js";
import { builtinToolbox, type Toolbox, type ToolContext } from "./tools.js";

export const ToolAgentOptionsSchema = z.strictObject({
  name: z.string().min(1).default("tool-agent"),
  systemPrompt: z
    .string()
    .default(
      "You solve the task with the tools: bash, read_file and write_file act in the task's working directory. When you are done, call submit with your final answer.",
    ),
  /** LLM calls per episode. */
  maxTurns: z.number().int().positive().default(20),
  /** Completion tokens of all calls together (the responses' usage). */
  maxCompletionTokens: z.number().int().positive().optional(),
  /**
   * Wall time of an episode, seconds. Keep it under the engine's timeout (engine.timeoutSeconds):
   * the agent's own ending keeps its steps' info and counters, the engine's abort does not.
   */
  maxSeconds: z.number().positive().default(600),
  /** Wall time of one bash command, seconds. */
  commandTimeoutS: z.number().positive().default(30),
  /** Characters of a command's stdout/stderr or of a file shown to the model. */
  maxOutputChars: z.number().int().positive().default(10_000),
  shell: z.enum(["bash", "sh"]).default("bash"),
  /** MCP servers whose tools are offered beside the built-in ones (mcp.ts says how). */
  mcpServers: McpServersSchema.default([]),
});
export type ToolAgentSettings = z.infer<typeof ToolAgentOptionsSchema>;
export type ToolAgentOptions = z.input<typeof ToolAgentOptionsSchema> & {
  /** Where the episode's sandbox comes from (default: the process's shared pool). */
  sandboxes?: SandboxSource;
};

interface Counters {
  turns: number;
  toolCalls: number;
  invalidToolCalls: number;
  failedToolCalls: number;
  completionTokens: number;
  sandboxSeconds: number;
}

interface Ending {
  reason: TerminationReason;
  endedBy: "submit" | "text" | "max_turns" | "max_tokens" | "max_seconds" | "error";
  answer?: string;
  error?: string;
}

/** The agent: a Rollout, and close() for its MCP servers' connections (mcp.ts). */
export type ToolAgent = Rollout & { close(): Promise<void> };

export function toolAgent(options: ToolAgentOptions = {}): ToolAgent {
  const { sandboxes = sharedSandboxes, ...rest } = options;
  const parsed = ToolAgentOptionsSchema.safeParse(rest);
  if (!parsed.success) {
    const i = parsed.error.issues[0]!;
    throw new TypeError(`toolAgent option ${i.path.join(".") || "(options)"}: ${i.message}`);
  }
  const settings = parsed.data;
  const mcp = settings.mcpServers.length ? new McpServers(settings.mcpServers) : undefined;
  const agent = rollout((task, config) => episode(task, config, settings, sandboxes, mcp), {
    name: settings.name,
  });
  return Object.assign(agent, { close: async () => mcp?.close() });
}

async function episode(
  task: Task,
  config: RolloutConfig,
  s: ToolAgentSettings,
  sandboxes: SandboxSource,
  mcp: McpServers | undefined,
) {
  const started = performance.now();
  const counters: Counters = {
    turns: 0,
    toolCalls: 0,
    invalidToolCalls: 0,
    failedToolCalls: 0,
    completionTokens: 0,
    sandboxSeconds: 0,
  };
  const steps: StepInput[] = [];
  // The episode's own deadline: aborts a running call or command when maxSeconds is up (or the
  // task's own agent timeout, when it sets a shorter one).
  const deadline = new AbortController();
  const expire = (seconds: number) =>
    setTimeout(
      () => deadline.abort(new Error(`the episode ran past ${seconds} s`)),
      Math.max(0, seconds * 1000 - (performance.now() - started)),
    );
  let timer = expire(s.maxSeconds);
  const signal = AbortSignal.any([config.signal, deadline.signal]);
  let env: TaskEnvironment | undefined;
  let ending: Ending;
  let verified: Verified | undefined;
  try {
    try {
      const tools = mcp ? await mcp.toolbox(signal) : builtinToolbox;
      env = await openTaskEnvironment(task, { sandboxes, signal });
      if (env.timeoutSec !== undefined && env.timeoutSec < s.maxSeconds) {
        clearTimeout(timer);
        timer = expire(env.timeoutSec);
      }
      const ctx: ToolContext = {
        sandbox: env.sandbox,
        signal,
        commandTimeoutS: s.commandTimeoutS,
        maxOutputChars: s.maxOutputChars,
        shell: s.shell,
        cwd: env.cwd,
        links: env.links,
      };
      ending = await loop(env.instruction, config, s, ctx, tools, counters, steps, signal);
    } catch (err) {
      ending = endingOf(err, config, deadline.signal);
    } finally {
      clearTimeout(timer);
    }
    // The verifier runs after every ending the agent itself reached (a limit included), as
    // Harbor's does; the engine's own abort (thrown above) skips it.
    if (env?.verify) verified = await timed(counters, () => runVerifier(env!, config.signal));
  } finally {
    await env?.release();
  }
  const { completionTokens: _, ...agentCounters } = counters; // the engine counts tokens itself
  return {
    trajectories: [{ name: s.name, steps }],
    terminationReason: ending.reason,
    metrics: agentCounters,
    info: {
      ...(ending.answer !== undefined ? { answer: ending.answer } : {}),
      ...(ending.error !== undefined ? { error: ending.error } : {}),
      ...verified,
      toolAgent: {
        endedBy: ending.endedBy,
        ...counters,
        wallSeconds: (performance.now() - started) / 1000,
      },
    },
  };
}

/** How a throw ends the episode; what the engine must see (its abort, a 5xx) is thrown again. */
function endingOf(err: unknown, config: RolloutConfig, deadline: AbortSignal): Ending {
  if (config.signal.aborted) throw err; // the engine's timeout or cancel: it records it
  if (deadline.aborted) return { reason: "timeout", endedBy: "max_seconds" };
  if (err instanceof AgentHttpError && err.status < 500)
    return {
      reason: isPromptTooLong(err.message) ? "max_prompt_length_exceeded" : "error",
      endedBy: "error",
      error: err.message,
    };
  if (err instanceof AgentHttpError || isConnectionError(err)) throw err;
  return {
    reason: "error",
    endedBy: "error",
    error: err instanceof Error ? err.message : String(err),
  };
}

async function loop(
  instruction: string,
  config: RolloutConfig,
  s: ToolAgentSettings,
  ctx: ToolContext,
  tools: Toolbox,
  counters: Counters,
  steps: StepInput[],
  signal: AbortSignal,
): Promise<Ending> {
  const messages: ChatMessage[] = [
    { role: "system", content: s.systemPrompt },
    { role: "user", content: instruction },
  ];
  for (;;) {
    if (counters.turns >= s.maxTurns) return { reason: "max_turns_exceeded", endedBy: "max_turns" };
    if (s.maxCompletionTokens !== undefined && counters.completionTokens >= s.maxCompletionTokens)
      return { reason: "max_response_length_exceeded", endedBy: "max_tokens" };
    const reply = await chat(config, { model: config.model, messages, tools: tools.specs }, signal);
    counters.turns++;
    counters.completionTokens += reply.completionTokens;
    const calls = reply.message.tool_calls ?? [];
    steps.push(
      reply.traceId
        ? { traceId: reply.traceId, info: { tools: calls.map((c) => c.function.name) } }
        : fromReply(messages, reply.message, calls),
    );
    messages.push(reply.message);
    if (calls.length === 0) {
      return { reason: "env_done", endedBy: "text", answer: contentText(reply.message.content) };
    }
    for (const call of calls) {
      counters.toolCalls++;
      const out = await timed(counters, () => tools.run(call, ctx));
      if (out.kind === "submit")
        return { reason: "env_done", endedBy: "submit", answer: out.answer };
      if (out.kind === "invalid") counters.invalidToolCalls++;
      if (out.kind === "failed") counters.failedToolCalls++;
      messages.push({ role: "tool", tool_call_id: call.id, content: out.content });
    }
  }
}

interface Reply {
  message: ChatMessage & { role: "assistant"; tool_calls?: ToolCall[] };
  completionTokens: number;
  traceId: string | undefined;
}

/** One Chat Completions call to the session; a refusal is an AgentHttpError with its status. */
async function chat(
  config: RolloutConfig,
  body: Record<string, unknown>,
  signal: AbortSignal,
): Promise<Reply> {
  const res = await request(`${config.baseURL}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${config.apiKey}` },
    body: JSON.stringify(body),
    signal,
  });
  const text = await res.body.text();
  if (res.statusCode >= 400) {
    throw new AgentHttpError(
      res.statusCode,
      `chat call failed with ${res.statusCode}: ${text.slice(0, 300)}`,
    );
  }
  const json = JSON.parse(text) as {
    choices?: { message?: Reply["message"] }[];
    usage?: { completion_tokens?: number };
  };
  const message = json.choices?.[0]?.message;
  if (!message) throw new AgentHttpError(res.statusCode, `chat reply has no choices[0].message`);
  const header = res.headers["x-rllm-trace-id"];
  return {
    message: {
      role: "assistant",
      content: message.content ?? null,
      ...(message.tool_calls?.length ? { tool_calls: message.tool_calls } : {}),
    },
    completionTokens: json.usage?.completion_tokens ?? 0,
    traceId: typeof header === "string" ? header : undefined,
  };
}

/** A step from the reply itself, for a server that returns no trace id (not a gateway). */
function fromReply(
  messages: ChatMessage[],
  message: Reply["message"],
  calls: ToolCall[],
): StepInput {
  return {
    messages: [...messages],
    response: {
      content: contentText(message.content),
      ...(calls.length ? { toolCalls: calls } : {}),
    },
  };
}

function contentText(content: ChatMessage["content"]): string {
  if (typeof content === "string") return content;
  if (!content) return "";
  return content.map((p) => (p.type === "text" ? String(p.text) : "")).join("");
}

async function timed<T>(counters: Counters, fn: () => Promise<T>): Promise<T> {
  const t = performance.now();
  try {
    return await fn();
  } finally {
    counters.sandboxSeconds += (performance.now() - t) / 1000;
  }
}

function isConnectionError(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return typeof code === "string" && /^(ECONNREFUSED|ECONNRESET|EPIPE|UND_ERR_)/.test(code);
}
