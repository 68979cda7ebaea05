/**
 * The endpoints that are not generation: health, model listing and info, vLLM's
 * /tokenize and /detokenize; anything else is 404 (405 for a POST to a GET endpoint).
 */
import type http from "node:http";
import type { ChatMessage } from "../../types/chat.js";
import type { FakeServer, Json } from "./context.js";
import { renderChatML } from "./render.js";
import { isObj, sendJson } from "./wire.js";

export function handleGet(s: FakeServer, path: string, res: http.ServerResponse): void {
  switch (path) {
    case "/health":
    case "/health_generate":
    case "/ping":
      if (path === "/health_generate" && s.kind !== "sglang") break;
      res.writeHead(s.config.healthy ? 200 : 503, { "content-length": 0 });
      res.end();
      return;
    case "/v1/models":
      sendJson(res, 200, modelsBody(s));
      return;
    case "/version":
      if (s.kind === "vllm") {
        sendJson(res, 200, { version: "0.0.0-fake" });
        return;
      }
      break;
    case "/get_model_info":
      if (s.kind === "sglang") {
        sendJson(res, 200, {
          model_path: s.model,
          tokenizer_path: s.model,
          is_generation: true,
          weight_version: s.config.weightVersion,
        });
        return;
      }
      break;
    case "/get_server_info":
      if (s.kind === "sglang") {
        sendJson(res, 200, {
          model_path: s.model,
          served_model_name: s.model,
          version: "0.0.0-fake",
        });
        return;
      }
      break;
  }
  sendJson(res, 404, { detail: "Not Found" });
}

/** A POST to anything but a generation endpoint of this kind. */
export function handleOtherPost(
  s: FakeServer,
  path: string,
  body: unknown,
  res: http.ServerResponse,
): void {
  if (s.kind === "vllm" && (path === "/tokenize" || path === "/detokenize") && isObj(body)) {
    if (path === "/tokenize") {
      const text = Array.isArray(body.messages)
        ? renderChatML(body.messages as ChatMessage[], body.add_generation_prompt !== false)
        : typeof body.prompt === "string"
          ? body.prompt
          : "";
      const tokens = s.engine.encode(text);
      sendJson(res, 200, {
        count: tokens.length,
        max_model_len: s.maxModelLen,
        tokens,
        token_strs: null,
      });
    } else {
      const ids = Array.isArray(body.tokens) ? (body.tokens as number[]) : [];
      sendJson(res, 200, { prompt: s.engine.decode(ids) });
    }
    return;
  }
  if (path === "/health" || path === "/v1/models") {
    sendJson(res, 405, { detail: "Method Not Allowed" });
    return;
  }
  sendJson(res, 404, { detail: "Not Found" });
}

function modelsBody(s: FakeServer): Json {
  const { model, kind } = s;
  if (kind === "openai")
    return {
      object: "list",
      data: [{ id: model, object: "model", created: 1700000000, owned_by: "system" }],
    };
  // vLLM lists each loaded LoRA adapter after the base model (root: its path, parent: the base)
  const adapters =
    kind === "vllm" && s.weights
      ? [...s.weights.adapters].map(([id, path]) => ({
          id,
          object: "model",
          created: s.created(),
          owned_by: "vllm",
          root: path,
          parent: model,
          max_model_len: null,
          permission: [],
        }))
      : [];
  return {
    object: "list",
    data: [
      {
        id: model,
        object: "model",
        created: s.created(),
        owned_by: kind === "vllm" ? "vllm" : "sglang",
        root: model,
        parent: null,
        max_model_len: s.maxModelLen,
        permission: [
          {
            id: `modelperm-${s.idBase}`,
            object: "model_permission",
            created: s.created(),
            allow_create_engine: false,
            allow_sampling: true,
            allow_logprobs: true,
            allow_search_indices: false,
            allow_view: true,
            allow_fine_tuning: false,
            organization: "*",
            group: null,
            is_blocking: false,
          },
        ],
      },
      ...adapters,
    ],
  };
}
