/**
 * A vLLM server's weight updates (vLLM's OpenAI server, 2026; sources in sampler contracts:
 * vllm/entrypoints/serve/lora/api_router.py, vllm/entrypoints/openai/models/serving.py,
 * vllm/entrypoints/serve/dev/{rlhf,cache,rpc}/api_router.py):
 *
 *   GET  /v1/models               the base model is the card with `parent: null` (adapters have
 *                                 their base as parent)
 *   POST /v1/load_lora_adapter    {lora_name, lora_path} → 200 text; 400 already loaded, bad rank
 *   POST /v1/unload_lora_adapter  {lora_name} → 200 text; 404 unknown name
 *   POST /pause?mode=wait         → {"status": "paused"} once running requests have finished (new
 *                                 ones are held; `wait_for_inflight_requests=true` too, its older
 *                                 spelling, without which an older server would abort them)
 *   POST /collective_rpc          {method: "reload_weights", kwargs: {weights_path,
 *                                 is_checkpoint_format: true}} → every worker re-reads the weights
 *   POST /reset_prefix_cache      → 200
 *   POST /resume                  → {"status": "resumed"}
 *
 * The LoRA routes exist only with VLLM_ALLOW_RUNTIME_LORA_UPDATING=True and --enable-lora; the
 * others only with VLLM_SERVER_DEV_MODE=1 (without them: 404 Not Found, and the error says so).
 */
import { AdminClient, type AdminOptions } from "./admin.js";
import { adapterName, baseModelOf, type WeightSync } from "./weight-sync.js";

const LORA_HINT =
  "start vLLM with VLLM_ALLOW_RUNTIME_LORA_UPDATING=True and --enable-lora (rllm sampler launch vllm prints the command)";
const DEV_HINT =
  "start vLLM with VLLM_SERVER_DEV_MODE=1 (rllm sampler launch vllm --full-weights prints the command)";

export class VllmWeightSync implements WeightSync {
  readonly engine = "vllm";
  private readonly admin: AdminClient;

  constructor(
    readonly url: string,
    o: AdminOptions,
  ) {
    this.admin = new AdminClient(url, o);
  }

  async servedModel(): Promise<string> {
    return baseModelOf(this.url, (await this.admin.call("GET", "/v1/models")).body);
  }

  async pushLora(dir: string, version: number): Promise<void> {
    await this.admin.call("POST", "/v1/load_lora_adapter", {
      body: { lora_name: adapterName(version), lora_path: dir },
      hint: LORA_HINT,
    });
  }

  async dropLora(version: number): Promise<void> {
    await this.admin.call("POST", "/v1/unload_lora_adapter", {
      body: { lora_name: adapterName(version) },
      hint: LORA_HINT,
    });
  }

  async pushFull(dir: string, _version: number): Promise<void> {
    let failure: unknown;
    try {
      // (inside the try: a pause that timed out while draining may still take effect;
      // wait_for_inflight_requests is mode=wait on vLLM before `mode`, which would abort)
      await this.admin.call("POST", "/pause", {
        query: { mode: "wait", wait_for_inflight_requests: "true" },
        hint: DEV_HINT,
      });
      await this.admin.call("POST", "/collective_rpc", {
        body: {
          method: "reload_weights",
          kwargs: { weights_path: dir, is_checkpoint_format: true },
        },
        hint: DEV_HINT,
      });
      await this.admin.call("POST", "/reset_prefix_cache", { hint: DEV_HINT });
    } catch (e) {
      failure = e;
    }
    try {
      await this.admin.call("POST", "/resume", { hint: DEV_HINT });
    } catch (e) {
      if (!failure) throw e;
      throw new Error(
        `${(failure as Error).message}; and resuming failed: ${(e as Error).message}`,
      );
    }
    if (failure) throw failure;
  }

  close(): Promise<void> {
    return this.admin.close();
  }
}
