/**
 * The torch backend's samplers when they are vLLM or SGLang servers (`backend.sampler.engine`):
 * each weight version is exported by the trainer worker into a directory of the sync dir and
 * pushed to every server (../remote/weight-sync.ts says how, per engine).
 *
 * Decided here, once:
 *   - the sync dir defaults to the trainer's exchange directory (ExternalStart.exchange: 0700,
 *     in RAM under /dev/shm, so only servers of the same user on this machine read it, and a
 *     full export costs the model's size in memory until the next is live); its path is logged
 *     once at connect;
 *   - a push's directory is `<syncDir>/rllm-sync-XXXX/rllm-v<N>-XXXX` (one private directory per
 *     backend, so runs sharing a sync dir never collide, removed by close(); a fresh one per
 *     push, so a version pushed again never overwrites files a server loaded);
 *   - full weights are a complete Hugging Face directory: the exported `model.safetensors` plus
 *     the model directory's config, generation config and tokenizer files (a server reloading
 *     from disk reads the config beside the weights);
 *   - a LoRA version's directory stays while the servers keep it loaded (vLLM reloads an adapter
 *     from its path when its CPU cache evicts it); a full version's once the next one is live;
 *   - a push that fails removes its directory and leaves the served version as it was; the
 *     caller does not advance its weight version.
 */
import { copyFile, mkdir, mkdtemp, readdir, rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { AdminOptions } from "../remote/admin.js";
import { SglangWeightSync } from "../remote/sglang.js";
import { VllmWeightSync } from "../remote/vllm.js";
import { adapterName, SamplerFleet, type WeightSync } from "../remote/weight-sync.js";
import type { SamplerInfo } from "../spi.js";
import type { ExternalSamplerConfig } from "./config.js";
import type { WorkerProcess } from "./worker.js";

/** The files of a model directory beside its weights that make an export a loadable model. */
const MODEL_FILES =
  /^(config|generation_config|tokenizer|tokenizer_config|special_tokens_map|added_tokens|vocab|preprocessor_config)\.json$|^(merges\.txt|tokenizer\.model|chat_template\.jinja)$/;

export interface ExternalStart {
  /**
   * The default sync dir: the trainer's exchange directory (mode 0700, under /dev/shm where it
   * exists, so full weights sit in RAM; removed on close, left behind by a kill -9). Servers
   * reading it must run as the same user on the same machine.
   */
  exchange: string;
  /** The model directory whose config and tokenizer files complete a full export. */
  modelDir: string;
  kind: "full" | "lora";
  /** The weight version the servers are taken to serve until the first push. */
  version: number;
  log: (line: string) => void;
}

export class ExternalSampler {
  /** The directory of the full weights the servers serve (the LoRA ones: the fleet's). */
  private fullDirs: string[] = [];

  private constructor(
    private readonly config: ExternalSamplerConfig,
    private readonly fleet: SamplerFleet,
    private readonly root: string,
    private readonly start: ExternalStart,
  ) {}

  /** Connects to every server (their base model must agree) and makes the sync directory. */
  static async connect(
    config: ExternalSamplerConfig,
    start: ExternalStart,
  ): Promise<ExternalSampler> {
    const o: AdminOptions = {
      retries: config.retries,
      timeoutMs: config.timeoutS * 1000,
      apiKey: config.apiKey,
    };
    const servers: WeightSync[] = config.urls.map((url) =>
      config.engine === "vllm"
        ? new VllmWeightSync(url, o, config.fullWeights)
        : new SglangWeightSync(url, o),
    );
    try {
      const fleet = await SamplerFleet.connect(servers, {
        modelName: config.modelName,
        keepVersions: config.keepVersions,
        version: start.version,
        log: start.log,
        lora: start.kind === "lora",
      });
      const parent = resolve(config.syncDir ?? start.exchange);
      await mkdir(parent, { recursive: true });
      const root = await mkdtemp(join(parent, "rllm-sync-"));
      start.log(
        `sampler weights are written to ${root} for the ${config.engine} servers to read${config.syncDir ? "" : " (the trainer's exchange directory, in RAM under /dev/shm where it exists: the servers must run as the same user on this machine; backend.sampler.syncDir moves it)"}`,
      );
      return new ExternalSampler(config, fleet, root, start);
    } catch (e) {
      await Promise.all(servers.map((s) => s.close()));
      throw e;
    }
  }

  /** Where generation goes now and which weights answer. */
  info(): SamplerInfo {
    const { model, version } = this.fleet.state;
    const c = this.config;
    return {
      baseURL: `${c.urls[0]}/v1`,
      model,
      weightVersion: version,
      kind: c.engine,
      upstreams: c.urls.map((url) => ({
        url,
        kind: c.engine,
        model: this.fleet.baseModel,
        ...(c.apiKey ? { apiKey: c.apiKey } : {}),
      })),
      ...(c.engine === "sglang" ? { tokenizer: this.start.modelDir } : {}),
      ...(this.start.kind === "lora" ? { keepVersions: c.keepVersions } : {}),
    };
  }

  /** Exports the trainer's weights as `version` and pushes them to every server. */
  async publish(trainer: WorkerProcess, version: number, timeoutMs: number): Promise<void> {
    // a fresh directory each push: one a server loaded from is never overwritten
    const dir = await mkdtemp(join(this.root, `${adapterName(version)}-`));
    let live = false;
    try {
      const r = await trainer.call("export_weights", { dir }, { timeoutMs });
      if (r.kind === "lora") {
        const dropped = await this.fleet.pushLora(dir, version);
        live = true;
        for (const d of dropped) await rm(d, { recursive: true, force: true });
      } else {
        await this.completeModelDir(dir);
        await this.fleet.pushFull(dir, version);
        live = true;
        for (const d of this.fullDirs) await rm(d, { recursive: true, force: true });
        this.fullDirs = [dir];
      }
    } finally {
      if (!live) await rm(dir, { recursive: true, force: true });
    }
  }

  private async completeModelDir(dir: string): Promise<void> {
    const from = this.start.modelDir;
    for (const f of await readdir(from))
      if (MODEL_FILES.test(f)) await copyFile(join(from, f), join(dir, f));
  }

  async close(): Promise<void> {
    await this.fleet.close();
    await rm(this.root, { recursive: true, force: true });
  }
}
