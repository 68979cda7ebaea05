/** The token-in/token-out adapters for one model's renderer (`--tokenizer DIR`). */
import type { ChatRenderer } from "../../hf/index.js";
import { SglangAdapter } from "./sglang.js";
import type { UpstreamAdapter } from "./types.js";
import { VllmTitoAdapter } from "./vllm-tito.js";

export function titoAdapters(renderer: ChatRenderer): {
  vllm: UpstreamAdapter;
  sglang: UpstreamAdapter;
} {
  return { vllm: new VllmTitoAdapter(renderer), sglang: new SglangAdapter(renderer) };
}
