/**
 * Folds a stream of Chat Completions chunks into the ChatCompletion a non-streaming call would have
 * returned: content and reasoning deltas concatenated, tool-call deltas merged by their index,
 * token ids and logprobs appended in order. The streaming and non-streaming paths then record
 * identical traces.
 */
import type {
  ChatCompletion,
  ChatCompletionChoice,
  ChatCompletionChunk,
  TokenLogprob,
  ToolCall,
  Usage,
} from "../types/index.js";

interface ChoiceAcc {
  content: string;
  sawContent: boolean;
  reasoning: string;
  sawReasoning: boolean;
  toolCalls: Map<number, ToolCall>;
  finishReason: string | null;
  tokenIds: number[];
  sawTokenIds: boolean;
  logprobs: TokenLogprob[];
  sawLogprobs: boolean;
  extra: Record<string, unknown>;
}

export class ChatStreamAccumulator {
  private id = "";
  private created = 0;
  private model = "";
  private promptTokenIds: number[] | null = null;
  private usage: Usage | null = null;
  private readonly choices = new Map<number, ChoiceAcc>();
  chunks = 0;

  push(chunk: ChatCompletionChunk): void {
    this.chunks++;
    if (!this.id && chunk.id) this.id = chunk.id;
    if (!this.created && chunk.created) this.created = chunk.created;
    if (!this.model && chunk.model) this.model = chunk.model;
    if (Array.isArray(chunk.prompt_token_ids)) this.promptTokenIds = chunk.prompt_token_ids;
    if (chunk.usage) this.usage = chunk.usage;
    for (const c of chunk.choices ?? []) {
      const acc = this.choice(c.index ?? 0);
      const d = c.delta ?? {};
      if (typeof d.content === "string") {
        acc.content += d.content;
        acc.sawContent = true;
      }
      // vLLM ≥0.10 names it `reasoning`, older vLLM/SGLang/DeepSeek `reasoning_content`.
      const reasoning = d.reasoning_content ?? (d as { reasoning?: unknown }).reasoning;
      if (typeof reasoning === "string") {
        acc.reasoning += reasoning;
        acc.sawReasoning = true;
      }
      for (const tc of d.tool_calls ?? []) {
        const cur = acc.toolCalls.get(tc.index) ?? {
          id: "",
          type: "function" as const,
          function: { name: "", arguments: "" },
        };
        if (tc.id) cur.id = tc.id;
        if (tc.function?.name) cur.function.name += tc.function.name;
        if (tc.function?.arguments) cur.function.arguments += tc.function.arguments;
        acc.toolCalls.set(tc.index, cur);
      }
      if (Array.isArray(c.token_ids)) {
        acc.tokenIds.push(...c.token_ids);
        acc.sawTokenIds = true;
      }
      const lp = c.logprobs?.content;
      if (Array.isArray(lp)) {
        acc.logprobs.push(...lp);
        acc.sawLogprobs = true;
      }
      if (c.finish_reason) acc.finishReason = c.finish_reason;
      // for-in, not Object.entries: no array of pairs per choice of every chunk.
      for (const k in c) {
        if (!KNOWN_CHOICE_KEYS.has(k)) acc.extra[k] = (c as Record<string, unknown>)[k];
      }
    }
  }

  private choice(index: number): ChoiceAcc {
    let acc = this.choices.get(index);
    if (!acc) {
      acc = {
        content: "",
        sawContent: false,
        reasoning: "",
        sawReasoning: false,
        toolCalls: new Map(),
        finishReason: null,
        tokenIds: [],
        sawTokenIds: false,
        logprobs: [],
        sawLogprobs: false,
        extra: {},
      };
      this.choices.set(index, acc);
    }
    return acc;
  }

  result(): ChatCompletion {
    const choices: ChatCompletionChoice[] = [...this.choices.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([index, acc]) => {
        const toolCalls = [...acc.toolCalls.entries()].sort((a, b) => a[0] - b[0]).map((e) => e[1]);
        const choice: ChatCompletionChoice = {
          ...acc.extra,
          index,
          message: {
            role: "assistant",
            content: acc.sawContent ? acc.content : null,
            ...(acc.sawReasoning ? { reasoning_content: acc.reasoning } : {}),
            ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
          },
          finish_reason: acc.finishReason,
          logprobs: acc.sawLogprobs ? { content: acc.logprobs } : null,
        };
        if (acc.sawTokenIds) choice.token_ids = acc.tokenIds;
        return choice;
      });
    const completion: ChatCompletion = {
      id: this.id,
      object: "chat.completion",
      created: this.created,
      model: this.model,
      choices,
    };
    if (this.usage) completion.usage = this.usage;
    if (this.promptTokenIds) completion.prompt_token_ids = this.promptTokenIds;
    return completion;
  }
}

const KNOWN_CHOICE_KEYS = new Set([
  "index",
  "delta",
  "finish_reason",
  "logprobs",
  "token_ids",
  "stop_reason",
]);
