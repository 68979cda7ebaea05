/**
 * Pushing a trainer's new weights into running vLLM or SGLang servers: one `WeightSync` per server
 * (vllm.ts, sglang.ts, over admin.ts), and `SamplerFleet`, which pushes each version to every
 * server of a run and says which model name requests must use. A backend writes the files; this
 * module only tells the servers where they are, so `dir` must be a path every server can read
 * (the same filesystem, or one shared at the same path).
 *
 * The call sequences (routes and bodies from the engines' sources; see each file's header):
 *
 *   LoRA, version N (both engines; no pause — a fresh adapter name shares no prefix cache):
 *     vLLM    POST /v1/load_lora_adapter   {lora_name: "rllm-vN", lora_path: dir}
 *     SGLang  POST /load_lora_adapter      {lora_name: "rllm-vN", lora_path: dir}
 *     then requests name "rllm-vN" (vLLM: `model`; SGLang's /generate: `lora_path`, which the
 *     gateway sends when the model it routes to is not the upstream's base model), then the
 *     versions older than the newest `keepVersions` are unloaded:
 *     vLLM    POST /v1/unload_lora_adapter {lora_name}
 *     SGLang  POST /unload_lora_adapter    {lora_name}   (waits for requests still using it)
 *
 *   Full weights, version N (`dir` a complete Hugging Face model directory):
 *     vLLM    POST /pause?mode=wait  (running requests finish, new ones are held)
 *             backend.sampler.fullWeights "transfer" (default): vLLM's weight-transfer API, its
 *             `disk` backend (server flag --weight-transfer-config '{"backend":"disk"}'):
 *               POST /init_weight_transfer_engine {init_info: {}}  (a server's first full push,
 *                                      and again once it says it is not initialised: a restart)
 *               POST /start_weight_update
 *               POST /update_weights {update_info: {path: dir}}
 *               POST /finish_weight_update {weight_version: "N"}
 *             "reload" (builds without the disk backend):
 *               POST /collective_rpc {method: "reload_weights",
 *                                     kwargs: {weights_path: dir, is_checkpoint_format: true}}
 *             POST /reset_prefix_cache
 *             POST /resume            (always, also after a failed update: never left paused)
 *     SGLang  POST /update_weights_from_disk {model_path: dir, weight_version: "N"}
 *             (unpaused, the server drains by itself: the update takes its model lock, so running
 *             requests finish first and new ones wait; it flushes the radix cache after loading)
 *             GET  /get_weight_version → "N", or the push failed
 *     SGLang's pause modes do not fit here: `abort` ends running requests (an agent gets a cut
 *     completion), and after `retract`/`in_place` the cache flush is refused while the held
 *     requests wait. Draining is also what the in-process sampler does (no sequence mixes two
 *     versions).
 *
 * Decided here, once:
 *   - every admin call is retried `retries` times (admin.ts); a push that still fails rejects with
 *     the server's message, and the fleet's model name and version stay the previous ones: the
 *     caller must not advance its weight version (never a silent stale model);
 *   - a LoRA run owns the adapter names `rllm-v<N>` on its servers: connecting unloads every one a
 *     server still holds (an earlier run's, left by a restart or a kill against servers that
 *     kept running), so a server's limit on loaded adapters (SGLang --max-loaded-loras, vLLM
 *     --max-cpu-loras, which `rllm sampler launch` sets to keepVersions + 1) never fills with
 *     them; none is adopted: a resumed run may restart from an older checkpoint than the
 *     adapter's, and until its first push requests go to the base model, as the fleet says.
 *     Two runs cannot share servers at once;
 *   - LoRA is all or nothing: a version loaded on some servers but not all is unloaded again from
 *     those (best effort), so a retry of the same version starts clean;
 *   - a version pushed again while loaded (a checkpoint loaded at the version it was saved) is
 *     loaded under a fresh name, `rllm-v<N>-r<k>`, from a fresh directory; once it is loaded
 *     everywhere requests use it and the replaced adapter is unloaded. Never unload-then-load
 *     (between the two, or when the load fails, requests would name an adapter that exists
 *     nowhere) and not vLLM's `load_inplace` (it keeps the adapter's id, so KV cached with the
 *     old weights is reused unless /reset_prefix_cache, a dev-mode route, runs; vLLM 0.19–0.26
 *     re-read an in-place adapter from disk on later requests; SGLang has none): a push that
 *     fails leaves the fleet on the adapter that is served;
 *   - full weights cannot be rolled back: a server that took version N before another failed
 *     serves N while the caller still says N − 1, and the run stops on the error;
 *   - an unload that fails after the new version loaded everywhere does not fail the push (the new
 *     weights are live): it is logged, the version stays listed, and the next push tries again.
 *
 * NCCL (designed, not built; nothing selects it): for servers whose GPUs can reach the trainer's
 * (the same node, or InfiniBand/RoCE between nodes), writing and re-reading files is replaced by a
 * broadcast from the trainer's rank 0, behind the same vLLM routes as the disk backend (servers
 * started with --weight-transfer-config '{"backend":"nccl"}'); only init_info and update_info
 * change. It would be a third method of WeightSync, `pushBroadcast(params, version)`, chosen at
 * startup when the sampler section names an NCCL rendezvous address and every server reports GPUs
 * (vLLM GET /get_world_size): once, vLLM POST /init_weight_transfer_engine {init_info:
 * {master_address, master_port, rank_offset, world_size}} (SGLang POST /init_weights_update_group
 * {…, group_name, backend: "nccl"}) on every server while the trainer joins the same group as rank
 * 0 (world_size = 1 + all server GPUs); per version, vLLM /pause → /start_weight_update →
 * /update_weights {update_info: {names, dtype_names, shapes, packed}} while the trainer broadcasts
 * the tensors in that order → /finish_weight_update {weight_version} → /reset_prefix_cache →
 * /resume; SGLang /update_weights_from_distributed {names, dtypes, shapes, group_name,
 * weight_version} with the same broadcast. The worker side needs an RPC method that broadcasts the
 * gathered (FSDP) parameters over that group.
 */
import { AdminCallError, AdminClient, type AdminOptions } from "./admin.js";

/** An adapter name of this module's: `adapterName(N)`, or a re-push's `rllm-v<N>-r<k>`. */
const OURS = /^rllm-v\d+(-r\d+)?$/;

export type ExternalEngine = "vllm" | "sglang";

/** The adapter name of weight version `version` on every server. */
export function adapterName(version: number): string {
  return `rllm-v${version}`;
}

/** The base model of a GET /v1/models body: the first card that is not an adapter. */
function baseModelOf(url: string, body: unknown): string {
  const data = (body as { data?: unknown } | null)?.data;
  if (Array.isArray(data))
    for (const m of data as { id?: unknown; parent?: unknown }[])
      if (typeof m?.id === "string" && (m.parent === null || m.parent === undefined)) return m.id;
  throw new Error(
    `GET ${url}/v1/models lists no base model (${JSON.stringify(body)?.slice(0, 200)}); set backend.sampler.modelName`,
  );
}

/** One server's weight-update routes. */
export interface WeightSync {
  readonly engine: ExternalEngine;
  /** The server's root URL. */
  readonly url: string;
  /** The base model's served name (GET /v1/models: the model that is no adapter). */
  servedModel(): Promise<string>;
  /** Loads the peft adapter directory `dir` as the adapter `name`. */
  pushLora(dir: string, name: string): Promise<void>;
  /** Unloads the adapter `name`. */
  dropLora(name: string): Promise<void>;
  /** The names of the adapters the server holds now. */
  adapters(): Promise<string[]>;
  /** Replaces the served weights with the Hugging Face directory `dir`, as version `version`. */
  pushFull(dir: string, version: number): Promise<void>;
  close(): Promise<void>;
}

/** An engine's adapter routes: where adapters load and unload, and what to start the server with. */
export interface LoraRoutes {
  load: string;
  unload: string;
  /** How to start the server so that the routes exist (said when a call fails). */
  hint: string;
}

/**
 * What both engines do alike over their admin client: the served model from GET /v1/models, and
 * adapters loaded and unloaded by name (`{lora_name, lora_path}` / `{lora_name}`) on their own
 * routes. An engine adds how full weights reach it.
 */
export abstract class AdminWeightSync implements WeightSync {
  abstract readonly engine: ExternalEngine;
  protected readonly admin: AdminClient;

  constructor(
    readonly url: string,
    o: AdminOptions,
    private readonly lora: LoraRoutes,
  ) {
    this.admin = new AdminClient(url, o);
  }

  async servedModel(): Promise<string> {
    return baseModelOf(this.url, (await this.admin.call("GET", "/v1/models")).body);
  }

  async pushLora(dir: string, name: string): Promise<void> {
    await this.admin.call("POST", this.lora.load, {
      body: { lora_name: name, lora_path: dir },
      hint: this.lora.hint,
    });
  }

  async dropLora(name: string): Promise<void> {
    await this.admin.call("POST", this.lora.unload, {
      body: { lora_name: name },
      hint: this.lora.hint,
    });
  }

  abstract adapters(): Promise<string[]>;

  abstract pushFull(dir: string, version: number): Promise<void>;

  close(): Promise<void> {
    return this.admin.close();
  }
}

/** What the fleet serves now: the name requests use and the version it holds. */
export interface FleetState {
  model: string;
  version: number;
}

/**
 * Every server of a run: the base model's name, each version pushed to all of them, the adapters
 * beyond `keepVersions` unloaded.
 */
export class SamplerFleet {
  /** The adapters loaded on every server, oldest first: a version's, its name and directory. */
  private loaded: { version: number; name: string; dir: string }[] = [];
  /** Re-pushes of a loaded version so far (each takes the name `rllm-v<N>-r<k>`). */
  private repushes = 0;
  private current: FleetState;

  private constructor(
    readonly servers: readonly WeightSync[],
    /** The base model's served name. */
    readonly baseModel: string,
    private readonly keepVersions: number,
    version: number,
    private readonly log: (line: string) => void,
  ) {
    this.current = { model: baseModel, version };
  }

  /**
   * Connects to every server and settles the base model's name: `modelName` when given (each
   * server must list it), else the first server's; servers that disagree are an error. A LoRA
   * run then unloads the adapters an earlier run left (the module header).
   */
  static async connect(
    servers: readonly WeightSync[],
    o: {
      modelName?: string | undefined;
      keepVersions: number;
      version: number;
      log: (line: string) => void;
      /** A LoRA run: the servers' `rllm-v<N>` adapters of an earlier run are unloaded. */
      lora?: boolean;
    },
  ): Promise<SamplerFleet> {
    const names = await Promise.all(servers.map((s) => s.servedModel()));
    const want = o.modelName ?? names[0]!;
    const wrong = servers.filter((_, i) => names[i] !== want);
    if (wrong.length > 0)
      throw new Error(
        `the sampler servers do not all serve ${JSON.stringify(want)}${o.modelName ? " (backend.sampler.modelName)" : ` (${servers[0]!.url}'s model)`}: ${wrong.map((s) => `${s.url} serves ${JSON.stringify(names[servers.indexOf(s)])}`).join("; ")}; start them on the same model${o.modelName ? " or fix backend.sampler.modelName" : ""}`,
      );
    if (o.lora) await Promise.all(servers.map((s) => dropLeftovers(s, o.log)));
    return new SamplerFleet(servers, want, o.keepVersions, o.version, o.log);
  }

  get state(): FleetState {
    return this.current;
  }

  /**
   * Loads adapter `dir` as `version` everywhere; returns the directories of the adapters unloaded
   * (whose files may go). `dir` must be a new directory: the loaded adapters' stay read.
   */
  async pushLora(dir: string, version: number): Promise<string[]> {
    // the same version again (a checkpoint loaded at the version it was saved): a fresh name
    const again = this.loaded.some((a) => a.version === version);
    const name = again ? `${adapterName(version)}-r${++this.repushes}` : adapterName(version);
    const results = await Promise.allSettled(this.servers.map((s) => loadLora(s, dir, name)));
    const failed = results.flatMap((r) => (r.status === "rejected" ? [r.reason as Error] : []));
    if (failed.length > 0) {
      await Promise.allSettled(
        this.servers.map((s, i) =>
          results[i]!.status === "fulfilled" ? s.dropLora(name) : undefined,
        ),
      );
      throw pushError(`LoRA weight version ${version}`, failed);
    }
    // the replaced adapter of this version goes first, then the versions beyond keepVersions
    const replaced = this.loaded.filter((a) => a.version === version);
    this.loaded = [...this.loaded.filter((a) => a.version !== version), { version, name, dir }];
    this.current = { model: name, version };
    const old = this.loaded.slice(0, Math.max(0, this.loaded.length - this.keepVersions));
    const dropped: string[] = [];
    for (const a of [...replaced, ...old]) {
      const r = await Promise.allSettled(this.servers.map((s) => s.dropLora(a.name)));
      const bad = r.flatMap((x) => (x.status === "rejected" ? [x.reason as Error] : []));
      if (bad.length > 0) {
        this.log(
          `${pushError(`unloading LoRA weight version ${a.version} (${a.name})`, bad).message} (tried again after the next push)`,
        );
        // kept listed (oldest first) so that the next push tries again
        if (replaced.includes(a)) this.loaded.unshift(a);
        continue;
      }
      this.loaded = this.loaded.filter((x) => x !== a);
      dropped.push(a.dir);
    }
    return dropped;
  }

  /** Replaces every server's weights with `dir` as `version`. */
  async pushFull(dir: string, version: number): Promise<void> {
    const results = await Promise.allSettled(this.servers.map((s) => s.pushFull(dir, version)));
    const failed = results.flatMap((r) => (r.status === "rejected" ? [r.reason as Error] : []));
    if (failed.length > 0) throw pushError(`full weight version ${version}`, failed);
    this.current = { model: this.baseModel, version };
  }

  async close(): Promise<void> {
    await Promise.all(this.servers.map((s) => s.close()));
  }
}

/** Unloads the adapters named `rllm-v<N>` (or `rllm-v<N>-r<k>`) that `s` holds (an earlier run's). */
async function dropLeftovers(s: WeightSync, log: (line: string) => void): Promise<void> {
  const left = (await s.adapters()).filter((n) => OURS.test(n));
  if (left.length === 0) return;
  log(`${s.url} holds adapters of an earlier run (${left.join(", ")}); unloading them`);
  for (const name of left) await s.dropLora(name);
}

/**
 * Loads `dir` as `name` on `s`; a server that still holds an adapter of that name (one whose
 * unload failed; the fleet never routes to it) has it unloaded and loaded again, from `dir`.
 */
async function loadLora(s: WeightSync, dir: string, name: string): Promise<void> {
  try {
    await s.pushLora(dir, name);
  } catch (e) {
    if (!(e instanceof AdminCallError && e.status === 400 && /already/.test(e.message))) throw e;
    await s.dropLora(name);
    await s.pushLora(dir, name);
  }
}

function pushError(what: string, errors: Error[]): Error {
  return new Error(
    `pushing ${what} to the sampler servers failed: ${errors.map((e) => e.message).join("; ")}`,
  );
}
