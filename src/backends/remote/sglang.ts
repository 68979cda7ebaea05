/**
 * An SGLang server's weight updates (sglang 0.5.x, 2026; sources in sampler contracts:
 * python/sglang/srt/entrypoints/http_server.py, managers/io_struct.py):
 *
 *   GET  /v1/models                 the served model (SGLang lists no adapters)
 *   POST /load_lora_adapter         {lora_name, lora_path} → {success, error_message,
 *                                   loaded_adapters}; 400 with success false on failure
 *   POST /unload_lora_adapter       {lora_name} → the same shape; waits until no running request
 *                                   uses the adapter
 *   POST /update_weights_from_disk  {model_path, weight_version} → {success, message,
 *                                   num_paused_requests}; unpaused it waits for running requests
 *                                   (its model lock), then loads and flushes the radix cache
 *   GET  /get_weight_version        {weight_version}
 *
 * Fields a version does not know are not sent (some versions refuse them with 400). LoRA needs
 * --enable-lora with --max-lora-rank and --lora-target-modules given at launch (no adapter is
 * loaded then, so nothing else tells the server the rank and modules).
 */
import type { AdminOptions } from "./admin.js";
import { AdminWeightSync } from "./weight-sync.js";

const LORA_HINT =
  "start SGLang with --enable-lora --max-lora-rank R --lora-target-modules ... (rllm sampler launch sglang prints the command)";

export class SglangWeightSync extends AdminWeightSync {
  readonly engine = "sglang";

  constructor(url: string, o: AdminOptions) {
    super(url, o, { load: "/load_lora_adapter", unload: "/unload_lora_adapter", hint: LORA_HINT });
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
