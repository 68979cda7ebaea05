/**
 * The subset of the Responses object model this translator produces, following the `openai` npm
 * client's types (resources/responses/responses.d.ts).
 */

export type ResponsesItemStatus = "in_progress" | "completed" | "incomplete";

export interface ResponsesOutputText {
  type: "output_text";
  text: string;
  annotations: unknown[];
}

export interface ResponsesMessageItem {
  id: string;
  type: "message";
  role: "assistant";
  status: ResponsesItemStatus;
  content: ResponsesOutputText[];
}

export interface ResponsesFunctionCallItem {
  id: string;
  type: "function_call";
  status: ResponsesItemStatus;
  call_id: string;
  name: string;
  arguments: string;
  /** The namespace tool the function belongs to (absent for a top-level function). */
  namespace?: string;
}

export interface ResponsesLocalShellCallItem {
  id: string;
  type: "local_shell_call";
  status: ResponsesItemStatus;
  call_id: string;
  action: {
    type: "exec";
    command: string[];
    env: Record<string, string>;
    working_directory?: string;
    timeout_ms?: number;
  };
}

export interface ResponsesCustomToolCallItem {
  id: string;
  type: "custom_tool_call";
  status: ResponsesItemStatus;
  call_id: string;
  name: string;
  input: string;
  namespace?: string;
}

export interface ResponsesReasoningItem {
  id: string;
  type: "reasoning";
  summary: { type: "summary_text"; text: string }[];
  content: { type: "reasoning_text"; text: string }[];
}

export type ResponsesOutputItem =
  | ResponsesMessageItem
  | ResponsesFunctionCallItem
  | ResponsesCustomToolCallItem
  | ResponsesLocalShellCallItem
  | ResponsesReasoningItem;

/** An item for a tool call of the model. */
export type ResponsesCallItem =
  | ResponsesFunctionCallItem
  | ResponsesCustomToolCallItem
  | ResponsesLocalShellCallItem;

export interface ResponsesUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number; cache_write_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

export type ResponsesStatus = "in_progress" | "completed" | "incomplete" | "failed";

export interface ResponsesResponse {
  id: string;
  object: "response";
  created_at: number;
  status: ResponsesStatus;
  /** Only set once the status is `completed`. */
  completed_at: number | null;
  error: { code: string; message: string } | null;
  incomplete_details: { reason: "max_output_tokens" | "content_filter" } | null;
  instructions: string | null;
  max_output_tokens: number | null;
  metadata: Record<string, string>;
  model: string;
  output: ResponsesOutputItem[];
  parallel_tool_calls: boolean;
  previous_response_id: null;
  reasoning: { effort: string | null; summary: string | null };
  /** Always false: nothing is stored, so no later request can refer to this response. */
  store: false;
  background: false;
  temperature: number | null;
  text: { format: unknown };
  tool_choice: unknown;
  tools: unknown[];
  top_p: number | null;
  truncation: "disabled";
  usage: ResponsesUsage | null;
}
