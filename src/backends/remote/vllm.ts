/**
 * A vLLM server's weight updates (vLLM's OpenAI server, 2026; sources in sampler contracts §1–§3:
 * vllm/entrypoints/serve/lora/api_router.py, vllm/entrypoints/openai/models/serving.py,
 * vllm/entrypoints/serve/dev/{rlhf,cache,rpc}/api_router.py,
 * vllm/distributed/weight_transfer/disk_engine.py):
 *
 *   GET  /v1/models               the base model is the card with `parent: null`, the loaded
 *                                 adapters the cards with their base as `parent`
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
 *   - an engine error inside init and start is a 500 and is retried like any admin call, except
 *     "not configured", "not initialised", "already active" and "must be called before", which
 *     a retry cannot change, and a timeout: the first call may still run on the server, and a
 *     second would land in the middle of it; a failed update or finish is not retried (vLLM
 *     has ended the update by then: a retry would answer "must be called before");
 *   - an update left open never blocks the next push: after a failure that follows a successful
 *     start (not a timeout) the client closes the update (closeUpdate: finish, and when the
 *     worker still holds it, an update it refuses, which ends it); a start answered "already
 *     active" (a timed-out push, or a trainer killed mid-update, e.g. by kill -9) closes the
 *     open one the same way and starts once more; closing an update whose checkpoint had
 *     loaded applies it, which the push that follows replaces;
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
/** Start while an update is open: "start_weight_update called while a weight update is already active" */
const ALREADY_ACTIVE = /already active/i;
/** Update or finish with no update open: "start_weight_update must be called before ..." */
const NOT_STARTED = /must be called before|without a matching start/i;

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

  /** GET /v1/models: the cards with a `parent` (the base model's card has none). */
  async adapters(): Promise<string[]> {
    const data = ((await this.admin.call("GET", "/v1/models")).body as { data?: unknown } | null)
      ?.data;
    return Array.isArray(data)
      ? (data as { id?: unknown; parent?: unknown }[]).flatMap((m) =>
          typeof m?.id === "string" && typeof m.parent === "string" ? [m.id] : [],
        )
      : [];
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
    try {
      await this.transferCall("/start_weight_update", {});
    } catch (e) {
      if (!(e instanceof AdminCallError && ALREADY_ACTIVE.test(e.message))) throw e;
      // an update a failed push or a killed trainer left open: close it, start once more
      await this.closeUpdate(dir);
      await this.transferCall("/start_weight_update", {});
    }
    try {
      // not tried again: vLLM ends the update when either fails (a retry answers "must be called
      // before"); the push fails and the next one starts a new update
      await this.transferCall("/update_weights", { update_info: { path: dir } }, false);
      await this.transferCall("/finish_weight_update", { weight_version: String(version) }, false);
    } catch (e) {
      // after a timeout the call may still run on the server: the next push's start closes it
      if (!(e instanceof AdminCallError && e.timedOut)) await this.closeUpdate(dir);
      throw e;
    }
  }

  /**
   * Ends the open update, best effort (each answer ignored, none retried). vLLM's worker keeps
   * its update open when the engine's finish raises (the disk engine's "No checkpoint was
   * loaded", a finish after its session aborted); an update call the engine refuses closes it.
   * So: finish {} (closes an update that loaded its checkpoint, or one already closed), and when
   * that fails otherwise, update {path} (refused without an engine session, which ends the
   * worker's) and finish {} again.
   */
  private async closeUpdate(dir: string): Promise<void> {
    const once = (route: string, body: unknown) =>
      this.admin.call("POST", route, { body, final: () => true, retryTimeout: false }).then(
        () => undefined,
        (e: Error) => e,
      );
    const finished = await once("/finish_weight_update", {});
    if (!finished || NOT_STARTED.test(finished.message)) return;
    await once("/update_weights", { update_info: { path: dir } });
    await once("/finish_weight_update", {});
  }

  /** One transfer route; `again`: whether a failed answer is tried again (start, init). */
  private async transferCall(route: string, body: unknown, again = true): Promise<void> {
    try {
      await this.admin.call("POST", route, {
        body,
        hint: TRANSFER_HINT,
        final: (m) =>
          !again ||
          NOT_CONFIGURED.test(m) ||
          NOT_INITIALISED.test(m) ||
          ALREADY_ACTIVE.test(m) ||
          NOT_STARTED.test(m),
        retryTimeout: false,
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
