/**
 * The weight-update admin routes of a fake vLLM or SGLang server (option `weightSync`), answered
 * as the real servers answer them (status codes and bodies: the sampler contracts, and
 * src/backends/remote/{vllm,sglang}.ts's headers), with the state they change:
 *
 *   vLLM    POST /v1/load_lora_adapter · /v1/unload_lora_adapter · /pause?mode= · /resume
 *           · /collective_rpc (reload_weights) · /reset_prefix_cache · the weight-transfer
 *           routes with the disk backend (weight-transfer.ts);  GET /is_paused · /weight_info
 *   SGLang  POST /load_lora_adapter · /unload_lora_adapter · /update_weights_from_disk;
 *           GET /get_weight_version  (not its pause routes: no client pauses SGLang, see
 *           src/backends/remote/weight-sync.ts)
 *
 * State: the loaded adapters (vLLM's /v1/models lists them; SGLang refuses a load beyond
 * `weightSync.maxLoadedAdapters`, its --max-loaded-loras; a request naming an unknown model is
 * vLLM's 404, an unknown `lora_path` SGLang's 400), vLLM's pause (generation requests wait until
 * resumed; SGLang's update from disk holds them too while it waits for the running ones, its
 * model lock), the weight version and the last full-weight directory, and a
 * call log (`calls`) for tests to assert the order. Every directory a load names is checked by
 * `python -m rllm_worker.inspect_weights` (inspect.ts; LoRA on `weightSync.baseModel`, full in
 * transformers): a directory that does not load is answered with the server's error and the
 * script's reason.
 * `failNext(route, times, message)` makes the next loads of a route fail with `message`;
 * `slowNext(route, ms)` makes the next call of a route answer `ms` late.
 */
import { existsSync } from "node:fs";
import type http from "node:http";
import type { FakeServer, Json } from "./context.js";
import { inspect } from "./inspect.js";
import type { WeightState as State } from "./weight-state.js";
import { TRANSFER_POST, weightTransfer } from "./weight-transfer.js";
import { errorBody, isObj, sendJson } from "./wire.js";

type Reply = { status: number; body: unknown };

const VLLM_POST = new Set([
  ...TRANSFER_POST,
  "/v1/load_lora_adapter",
  "/v1/unload_lora_adapter",
  "/pause",
  "/resume",
  "/collective_rpc",
  "/reset_prefix_cache",
]);
const SGLANG_POST = new Set([
  "/load_lora_adapter",
  "/unload_lora_adapter",
  "/update_weights_from_disk",
]);

/** Whether `path` is a weight route of this server (then handleWeights answers it). */
export function isWeightRoute(s: FakeServer, method: string, path: string): boolean {
  if (!s.weights) return false;
  if (method === "GET")
    return (
      (s.kind === "vllm" && (path === "/is_paused" || path === "/weight_info")) ||
      (s.kind === "sglang" && path === "/get_weight_version")
    );
  return (s.kind === "vllm" ? VLLM_POST : s.kind === "sglang" ? SGLANG_POST : new Set()).has(path);
}

export async function handleWeights(
  s: FakeServer,
  path: string,
  query: URLSearchParams,
  body: unknown,
  res: http.ServerResponse,
): Promise<void> {
  const w = s.weights as State;
  const b = isObj(body) ? body : {};
  const delay = w.takeDelay(path);
  if (delay > 0) await new Promise((r) => setTimeout(r, delay));
  const r =
    s.kind === "vllm" ? await vllm(s, w, path, query, b, body) : await sglang(s, w, path, b);
  w.calls.push({
    route: path,
    query: Object.fromEntries(query),
    body,
    status: r.status,
    at: Date.now(),
  });
  if (typeof r.body === "string" || r.body === null) {
    const text = r.body ?? "";
    res.writeHead(r.status, {
      "content-type": "text/plain",
      "content-length": Buffer.byteLength(text),
    });
    res.end(text);
  } else sendJson(res, r.status, r.body);
}

async function vllm(
  s: FakeServer,
  w: State,
  path: string,
  query: URLSearchParams,
  b: Json,
  body: unknown,
): Promise<Reply> {
  const err = (status: number, message: string): Reply => ({
    status,
    body: errorBody(s, status, message, path, null),
  });
  const injected = w.takeFailure(path);
  const transfer = await weightTransfer(s, w, path, body, err, injected);
  if (transfer) return transfer;
  switch (path) {
    case "/v1/load_lora_adapter": {
      const name = b.lora_name;
      const dir = b.lora_path;
      if (typeof name !== "string" || !name || typeof dir !== "string" || !dir)
        return err(400, "Both 'lora_name' and 'lora_path' must be provided.");
      if (w.adapters.has(name) && b.load_inplace !== true)
        return err(
          400,
          `The lora adapter '${name}' has already been loaded. If you want to load the adapter in place, set 'load_inplace' to True.`,
        );
      if (injected) return err(400, injected);
      if (!existsSync(dir))
        return err(404, `Loading lora ${name} failed: No adapter found for ${dir}`);
      const bad = await inspect(dir, "lora", s.options.weightSync?.baseModel);
      if (bad) return err(400, `Loading lora ${name} failed: ${bad}`);
      w.adapters.set(name, dir);
      return { status: 200, body: `Success: LoRA adapter '${name}' added successfully.` };
    }
    case "/v1/unload_lora_adapter": {
      const name = b.lora_name;
      if (typeof name !== "string" || !name)
        return err(400, "'lora_name' needs to be provided to unload a LoRA adapter.");
      if (injected) return err(400, injected);
      if (!w.adapters.delete(name)) return err(404, `The lora adapter '${name}' cannot be found.`);
      return { status: 200, body: `Success: LoRA adapter '${name}' removed successfully.` };
    }
    case "/pause": {
      const mode = query.get("mode") ?? "abort";
      if (!["abort", "wait", "keep"].includes(mode))
        return { status: 400, body: { error: `Invalid mode: ${mode}` } };
      if (injected)
        return { status: 500, body: { error: `Failed to pause generation: ${injected}` } };
      w.paused = true;
      if (mode === "wait") await until(() => w.running === 0);
      return { status: 200, body: { status: "paused" } };
    }
    case "/resume":
      if (injected)
        return { status: 500, body: { error: `Failed to resume generation: ${injected}` } };
      w.paused = false;
      w.hold(false);
      return { status: 200, body: { status: "resumed" } };
    case "/collective_rpc": {
      if (typeof b.method !== "string")
        return { status: 400, body: { detail: "Missing 'method' in request body" } };
      if (injected) return err(500, injected);
      const kw = isObj(b.kwargs) ? b.kwargs : {};
      if (b.method !== "reload_weights" || typeof kw.weights_path !== "string")
        return err(
          500,
          `the fake only runs reload_weights with weights_path, not ${JSON.stringify(b)}`,
        );
      const bad = await inspect(kw.weights_path, "full", s.options.weightSync?.baseModel);
      if (bad) return err(500, `reload_weights failed: ${bad}`);
      w.modelPath = kw.weights_path;
      return { status: 200, body: null };
    }
    case "/reset_prefix_cache":
      if (injected) return err(500, injected);
      return { status: 200, body: null };
    case "/is_paused":
      return { status: 200, body: { is_paused: w.paused } };
  }
  return err(404, "Not Found");
}

async function sglang(s: FakeServer, w: State, path: string, b: Json): Promise<Reply> {
  const lora = (ok: boolean, message: string): Reply => ({
    status: ok ? 200 : 400,
    body: {
      success: ok,
      error_message: ok ? "" : message,
      loaded_adapters: Object.fromEntries(w.adapters),
      rid: null,
      http_worker_ipc: null,
    },
  });
  const loaded = () => `Loaded LoRAs: dict_keys(${JSON.stringify([...w.adapters.keys()])})`;
  const injected = w.takeFailure(path);
  switch (path) {
    case "/load_lora_adapter": {
      const name = b.lora_name;
      const dir = b.lora_path;
      if (typeof name !== "string" || typeof dir !== "string")
        return {
          status: 400,
          body: errorBody(s, 400, "lora_name and lora_path are required", path, null),
        };
      if (w.adapters.has(name))
        return lora(false, `LoRA with name ${name} already exists. ${loaded()}`);
      if (injected) return lora(false, injected);
      const max = s.options.weightSync?.maxLoadedAdapters;
      if (max !== undefined && w.adapters.size >= max)
        return lora(
          false,
          `Failed to load LoRA adapter ${name} as the maximum number of loaded LoRA adapters (${max}) has been reached. Please unload some LoRA adapters or increase max_loaded_loras.`,
        );
      const bad = existsSync(dir)
        ? await inspect(dir, "lora", s.options.weightSync?.baseModel)
        : `${dir} does not exist`;
      if (bad) return lora(false, `Failed to load LoRA adapter ${name}: ${bad}`);
      w.adapters.set(name, dir);
      return lora(true, "");
    }
    case "/unload_lora_adapter": {
      const name = String(b.lora_name);
      if (injected) return lora(false, injected);
      if (!w.adapters.has(name))
        return lora(false, `LoRA with name ${name} does not exist. ${loaded()}`);
      w.adapters.delete(name);
      return lora(true, "");
    }
    case "/update_weights_from_disk": {
      const update = (ok: boolean, message: string): Reply => ({
        status: ok ? 200 : 400,
        body: { success: ok, message, num_paused_requests: 0 },
      });
      if (typeof b.model_path !== "string")
        return { status: 400, body: errorBody(s, 400, "model_path is required", path, null) };
      if (injected) return update(false, injected);
      // the update takes the model lock: running requests finish, new ones wait
      w.hold(true);
      await until(() => w.running === 0);
      try {
        const bad = await inspect(b.model_path, "full", s.options.weightSync?.baseModel);
        if (bad) return update(false, `Failed to get weights iterator: ${bad}`);
        w.modelPath = b.model_path;
        const v = typeof b.weight_version === "string" ? b.weight_version : undefined;
        if (v !== undefined) s.config.weightVersion = v;
        return update(
          true,
          `Succeeded to update model weights.${v ? ` Weight version updated to ${v}.` : ""}`,
        );
      } finally {
        w.hold(false);
      }
    }
    case "/get_weight_version":
      return { status: 200, body: { weight_version: s.config.weightVersion } };
  }
  return { status: 404, body: { detail: "Not Found" } };
}

/** The model a response names: vLLM answers under the LoRA adapter a request named. */
export function respondingModel(s: FakeServer, body: Json): string {
  const m = body.model;
  return s.kind === "vllm" && typeof m === "string" && s.weights?.adapters.has(m) ? m : s.model;
}

/** A request's model is unknown: vLLM's 404 for `model`, SGLang's 400 for `lora_path`. */
export function unknownModel(s: FakeServer, body: Json): string | undefined {
  const w = s.weights;
  if (!w) return undefined;
  if (
    s.kind === "vllm" &&
    typeof body.model === "string" &&
    body.model !== s.model &&
    !w.adapters.has(body.model)
  )
    return `The model \`${body.model}\` does not exist.`;
  if (s.kind === "sglang" && typeof body.lora_path === "string" && !w.adapters.has(body.lora_path))
    return `LoRA adapter ${body.lora_path} is not loaded. Loaded LoRAs: dict_keys(${JSON.stringify([...w.adapters.keys()])})`;
  return undefined;
}

function until(cond: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const tick = () => (cond() ? resolve() : setTimeout(tick, 5));
    tick();
  });
}
