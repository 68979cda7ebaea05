/**
 * A vLLM server's weight updates (vLLM's OpenAI server, 2026; sources in sampler contracts §1–§3:
 * vllm/entrypoints/serve/lora/api_router.py, vllm/entrypoints/openai/models/serving.py,
 * vllm/entrypoints/serve/dev/{rlhf,cache,rpc}/api_router.py,
 * vllm/distributed/weight_transfer/disk_engine.py):
 *
 *   GET  /v1/models               the base model is the card with `parent: null` (adapters have
 *                                 their base as parent)
 *   POST /v1/load_lora_adapter    {lora_name, lora_path} → 200 text; 400 already loaded, bad rank
 *   POST /v1/unload_lora_adapter  {lora_name} → 200 text; 404 unknown name
 *   POST /pause?mode=wait         → {"status": "paused"} once running requests have finished (new
 *                                 ones are held; `wait_for_inflight_requests=true` too, its older
 *                                 spelling, without which an older server would abort them)
 *   full weights, `fullWeights: "transfer"` (the default; vLLM's weight-transfer API, disk backend):
 *   POST /init_weight_transfer_engine {init_info: {}}        → {"message": ...}; once per server
 *   POST /start_weight_update                                → {"message": ...}
 *   POST /update_weights {update_info: {path: "/abs/dir"}}   → every worker loads the directory's
 *                                 *.safetensors (absolute, existing, one checkpoint per update)
 *   POST /finish_weight_update {weight_version: "N"}         → post-processing; the version is
 *                                 what GET /weight_info reports
 *   full weights, `fullWeights: "reload"` (builds without the disk backend):
 *   POST /collective_rpc          {method: "reload_weights", kwargs: {weights_path,
 *                                 is_checkpoint_format: true}} → every worker re-reads the weights
 *   POST /reset_prefix_cache      → 200
 *   POST /resume                  → {"status": "resumed"}
 *
 * The LoRA routes exist only with VLLM_ALLOW_RUNTIME_LORA_UPDATING=True and --enable-lora; the
 * others only with VLLM_SERVER_DEV_MODE=1 (without them: 404 Not Found, and the error says so).
 * The transfer routes answer 500 "Weight transfer not configured" on a server started without
 * --weight-transfer-config; the error names the flag and the knob.
 *
 * Decided here, once (transfer):
 *   - the engine is initialised lazily, at a server's first full push (a LoRA run never needs
 *     it), and again when the server answers that it is not initialised (it restarted since):
 *     then init and the whole start → update → finish run once more;
 *   - an engine error inside these routes is a 500 and is retried like any admin call, except
 *     "not configured" and "not initialised", which a retry cannot change;
 *   - the NCCL backend (weight-sync.ts's design note) would drive the same four routes with
 *     other init_info/update_info; `disk` needs no rendezvous, so init_info is `{}`.
 */
import { AdminCallError, type AdminOptions } from "./admin.js";
import { AdminWeightSync } from "./weight-sync.js";

const LORA_HINT =
  "start vLLM with VLLM_ALLOW_RUNTIME_LORA_UPDATING=True and --enable-lora (rllm sampler launch vllm prints the command)";
const DEV_HINT =
  "start vLLM with VLLM_SERVER_DEV_MODE=1 (rllm sampler launch vllm --full-weights prints the command)";
const TRANSFER_HINT =
  'backend.sampler.fullWeights "transfer" needs vLLM started with VLLM_SERVER_DEV_MODE=1 and --weight-transfer-config \'{"backend":"disk"}\' (rllm sampler launch vllm --full-weights prints the command); for a vLLM build without the disk backend set backend.sampler.fullWeights to "reload"';
/** vLLM's worker without --weight-transfer-config: "Weight transfer not configured. ..." */
const NOT_CONFIGURED = /weight transfer not configured/i;
/** An engine asked to update before init_weight_transfer_engine: "... not initialized. ..." */
const NOT_INITIALISED = /not initiali[sz]ed/i;

/** How full weights reach the server (backend.sampler.fullWeights). */
export type VllmFullWeights = "transfer" | "reload";

export class VllmWeightSync extends AdminWeightSync {
  readonly engine = "vllm";
  /** Whether /init_weight_transfer_engine answered since this client began (or last failed). */
  private transferReady = false;

  constructor(
    url: string,
    o: AdminOptions,
    private readonly fullWeights: VllmFullWeights = "transfer",
  ) {
    super(url, o, {
      load: "/v1/load_lora_adapter",
      unload: "/v1/unload_lora_adapter",
      hint: LORA_HINT,
    });
  }

  async pushFull(dir: string, version: number): Promise<void> {
    let failure: unknown;
    try {
      // (inside the try: a pause that timed out while draining may still take effect;
      // wait_for_inflight_requests is mode=wait on vLLM before `mode`, which would abort)
      await this.admin.call("POST", "/pause", {
        query: { mode: "wait", wait_for_inflight_requests: "true" },
        hint: DEV_HINT,
      });
      if (this.fullWeights === "transfer") await this.transfer(dir, version);
      else await this.reload(dir);
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

  /** The weight-transfer API's disk backend: (init) → start → update {path} → finish {version}. */
  private async transfer(dir: string, version: number): Promise<void> {
    const fresh = !this.transferReady;
    if (fresh) await this.initTransfer();
    try {
      await this.transferOnce(dir, version);
    } catch (e) {
      if (fresh || !(e instanceof AdminCallError && NOT_INITIALISED.test(e.message))) throw e;
      // the server restarted since its engine was initialised
      this.transferReady = false;
      await this.initTransfer();
      await this.transferOnce(dir, version);
    }
  }

  private async initTransfer(): Promise<void> {
    await this.transferCall("/init_weight_transfer_engine", { init_info: {} });
    this.transferReady = true;
  }

  private async transferOnce(dir: string, version: number): Promise<void> {
    await this.transferCall("/start_weight_update", {});
    await this.transferCall("/update_weights", { update_info: { path: dir } });
    await this.transferCall("/finish_weight_update", { weight_version: String(version) });
  }

  private async transferCall(route: string, body: unknown): Promise<void> {
    try {
      await this.admin.call("POST", route, {
        body,
        hint: TRANSFER_HINT,
        final: (m) => NOT_CONFIGURED.test(m) || NOT_INITIALISED.test(m),
      });
    } catch (e) {
      if (!(e instanceof AdminCallError && NOT_CONFIGURED.test(e.message))) throw e;
      throw new AdminCallError(e.url, e.route, e.status, `${e.message} — ${TRANSFER_HINT}`);
    }
  }

  /** The workers' layerwise reload through /collective_rpc. */
  private async reload(dir: string): Promise<void> {
    await this.admin.call("POST", "/collective_rpc", {
      body: { method: "reload_weights", kwargs: { weights_path: dir, is_checkpoint_format: true } },
      hint: DEV_HINT,
    });
  }
}
