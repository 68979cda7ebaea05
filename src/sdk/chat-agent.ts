/**
 * The default agent of the built-in benchmarks: one chat call with the benchmark's system prompt
 * and the task's question, as a plain HTTP call to the session's OpenAI-compatible URL (undici's
 * request: a fraction of fetch's cost per call, which matters at thousands of rollouts a second).
 */

/** One keep-alive connection pool shared by every default-agent rollout of the process. */
let shared: Agent | undefined;
const dispatcher = (): Agent => {
  shared ??= new Agent({ connections: 1024, keepAliveTimeout: 30_000 });
  return shared;
};

import { Agent, request } from "undici";
import type { ChatMessage, Task } from "../types/index.js";
import { type Rollout, rollout } from "./rollout.js";

/**
 * What the agent sends: a system prompt (optional) and the task's user message, or — for a
 * conversation that is not that pair (prior turns, a system prompt made per task) — `messages`,
 * the whole list, used as given.
 */
export type ChatAgentOptions = { name?: string } & (
  | { systemPrompt?: string; userPrompt: (task: Task) => string; messages?: undefined }
  | { messages: (task: Task) => ChatMessage[]; systemPrompt?: undefined; userPrompt?: undefined }
);

function conversation(options: ChatAgentOptions, task: Task): ChatMessage[] {
  if (options.messages) return options.messages(task);
  const messages: ChatMessage[] = [];
  if (options.systemPrompt) messages.push({ role: "system", content: options.systemPrompt });
  messages.push({ role: "user", content: options.userPrompt(task) });
  return messages;
}

export class AgentHttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = "AgentHttpError";
  }
}

/**
 * Whether a model server's refusal says the prompt did not fit the context (vLLM's "maximum
 * context length", SGLang's and OpenAI's wordings): the episode then ends as
 * max_prompt_length_exceeded, not as an error of the agent.
 */
export function isPromptTooLong(message: string): boolean {
  return /context length|maximum context|too long|max_model_len|prompt is too long|exceeds the model/i.test(
    message,
  );
}

export function chatAgent(options: ChatAgentOptions): Rollout {
  return rollout(
    async (task, config) => {
      const messages = conversation(options, task);
      const res = await request(`${config.baseURL}/chat/completions`, {
        method: "POST",
        dispatcher: dispatcher(),
        headers: { "content-type": "application/json", authorization: `Bearer ${config.apiKey}` },
        body: JSON.stringify({ model: config.model, messages }),
        signal: config.signal,
      });
      const text = await res.body.text();
      if (res.statusCode >= 400) {
        throw new AgentHttpError(
          res.statusCode,
          `chat call failed with ${res.statusCode}: ${text.slice(0, 300)}`,
        );
      }
    },
    { name: options.name ?? "chat" },
  );
}
