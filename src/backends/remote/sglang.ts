/**
 * An SGLang server's weight updates (sglang 0.5.x, 2026; sources in sampler contracts:
 * python/sglang/srt/entrypoints/http_server.py, managers/io_struct.py):
 *
 *   GET  /v1/models                 the served model (SGLang lists no adapters)
 *   POST /load_lora_adapter         {lora_name, lora_path} → {success, error_message,
 *                                   loaded_adapters}; 400 with success false on failure
 *   POST /unload_lora_adapter       {lora_name} → the same shape; waits until no running request
 *                                   uses the adapter; an unknown name: 400 with loaded_adapters,
 *                                   the only listing of the adapters (adapters())
 *   POST /update_weights_from_disk  {model_path, weight_version} → {success, message,
 *                                   num_paused_requests}; unpaused it waits for running requests
 *                                   (its model lock), then loads and flushes the radix cache
 *   GET  /get_weight_version        {weight_version}
 *
 * Fields a version does not know are not sent (some versions refuse them with 400). LoRA needs
 * --enable-lora with --max-lora-rank and --lora-target-modules given at launch (no adapter is
 * loaded then, so nothing else tells the server the rank and modules).
 */
import { AdminCallError, type AdminOptions } from "./admin.js";
import { AdminWeightSync } from "./weight-sync.js";

/** The name unloaded to learn the loaded adapters: no adapter has it. */
const PROBE = "rllm-list-adapters";

const LORA_HINT =
  "start SGLang with --enable-lora --max-lora-rank R --lora-target-modules ... (rllm sampler launch sglang prints the command)";

export class SglangWeightSync extends AdminWeightSync {
  readonly engine = "sglang";

  constructor(url: string, o: AdminOptions) {
    super(url, o, { load: "/load_lora_adapter", unload: "/unload_lora_adapter", hint: LORA_HINT });
  }

  /**
   * SGLang has no route that lists adapters; every answer of its adapter routes carries
   * `loaded_adapters`, also a refusal: an unload of a name no run uses is refused with them.
   */
  async adapters(): Promise<string[]> {
    let body: unknown;
    try {
      body = (
        await this.admin.call("POST", "/unload_lora_adapter", {
          body: { lora_name: PROBE },
          final: () => true,
        })
      ).body;
    } catch (e) {
      if (!(e instanceof AdminCallError) || e.status !== 400) throw e;
      body = e.body;
    }
    const loaded = (body as { loaded_adapters?: unknown } | null)?.loaded_adapters;
    if (typeof loaded !== "object" || loaded === null)
      throw new Error(
        `${this.url}/unload_lora_adapter answered without loaded_adapters (${JSON.stringify(body)?.slice(0, 200)}); is the server SGLang 0.5 or newer, started with --enable-lora?`,
      );
    return Object.keys(loaded);
  }

  async pushFull(dir: string, version: number): Promise<void> {
    await this.admin.call("POST", "/update_weights_from_disk", {
      body: { model_path: dir, weight_version: String(version) },
    });
    const got = (await this.admin.call("GET", "/get_weight_version")).body as {
      weight_version?: unknown;
    } | null;
    if (got?.weight_version !== String(version))
      throw new Error(
        `${this.url} took the weights of ${dir} but reports weight version ${JSON.stringify(got?.weight_version)}, not "${version}"; is the server's SGLang older than 0.5 (no weight_version)?`,
      );
  }
}
