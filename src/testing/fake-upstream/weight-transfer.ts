/**
 * vLLM's weight-transfer routes with the `disk` backend, as a fake vLLM server (option
 * `weightSync`) answers them (sampler contracts §3.1, §3.2; vllm/entrypoints/serve/dev/rlhf/
 * api_router.py, vllm/v1/worker/gpu_worker.py, vllm/distributed/weight_transfer/disk_engine.py):
 *
 *   POST /init_weight_transfer_engine {init_info: {}}   → {"message": "Weight transfer initialized"}
 *   POST /start_weight_update                           → {"message": "Weight update started"}
 *   POST /update_weights {update_info: {path}}          → {"message": "Weights updated"}
 *   POST /finish_weight_update {weight_version?: str}   → {"message": "Weight update finished"}
 *   GET  /weight_info                                   → {"weight_version": str}
 *
 * Errors as vLLM gives them: a missing or non-object `init_info`/`update_info` is FastAPI's 400
 * `{"detail": ...}` (the router checks it); anything the engine raises is a 500 in the nested
 * envelope: no --weight-transfer-config ("Weight transfer not configured. ..."), start while an
 * update is active, update or finish before start, a second checkpoint in one update, a path that
 * is not an absolute existing directory with *.safetensors (disk_engine.py's checks, its
 * messages), weights that do not load (here: in transformers, inspect.ts). The version a finish
 * names is the server's weight version.
 *
 * Two states, as in vLLM: the worker's flag of an open update (vllm/v1/worker/gpu_worker.py:
 * start sets it, "already active" when set; update and finish refuse without it; an update that
 * raises clears it; finish clears it only when the engine's finish returns) and the disk
 * engine's session (disk_engine.py: a failed update aborts it; a finish without a checkpoint
 * aborts it and raises "No checkpoint was loaded ..."; a finish without a session raises "No
 * shared-disk weight update is active"). So a finish that fails leaves the worker's update open
 * (the next start answers "already active") until an update call fails and clears it.
 *
 * One rule is stricter than the disk engine, whose init is a no-op: start before init fails, as
 * it does on every backend with a rendezvous (NCCL: "... not initialized. Call
 * init_transfer_engine() first."), and as after a server restart; so a client that skips init,
 * or does not init again after a restart, fails here. Pausing is not required (vLLM does not
 * check it).
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { isAbsolute } from "node:path";
import type { FakeServer, Json } from "./context.js";
import { inspect } from "./inspect.js";
import type { WeightState } from "./weight-state.js";
import { isObj } from "./wire.js";

type Reply = { status: number; body: unknown };

export const TRANSFER_POST = [
  "/init_weight_transfer_engine",
  "/start_weight_update",
  "/update_weights",
  "/finish_weight_update",
];

/** The answer to a weight-transfer route, or undefined when `path` is none of them. */
export async function weightTransfer(
  s: FakeServer,
  w: WeightState,
  path: string,
  body: unknown,
  err: (status: number, message: string) => Reply,
  injected: string | undefined,
): Promise<Reply | undefined> {
  if (path === "/weight_info")
    return { status: 200, body: { weight_version: s.config.weightVersion } };
  if (!TRANSFER_POST.includes(path)) return undefined;
  const detail = (message: string): Reply => ({ status: 400, body: { detail: message } });
  const b: Json = isObj(body) ? body : {};
  const t = w.transfer;
  const field = path === "/init_weight_transfer_engine" ? "init_info" : "update_info";
  if (path === "/init_weight_transfer_engine" || path === "/update_weights") {
    if (!isObj(body)) return detail("Request body must be a JSON object");
    if (b[field] === undefined || b[field] === null)
      return detail(`Missing '${field}' in request body`);
    if (!isObj(b[field])) return detail(`'${field}' must be a JSON object`);
  }
  if (s.options.weightSync?.weightTransfer === false)
    return err(
      500,
      "Weight transfer not configured. Please set weight_transfer_config to enable weight transfer.",
    );
  if (injected) {
    // a failed update: the engine aborts, the worker closes; a failed finish: only the engine
    if (path === "/update_weights" || path === "/finish_weight_update") t.session = null;
    if (path === "/update_weights") t.active = false;
    return err(500, injected);
  }
  switch (path) {
    case "/init_weight_transfer_engine": {
      const extra = Object.keys(b.init_info as Json);
      if (extra.length > 0)
        return err(
          500,
          `DiskWeightTransferInitInfo.__init__() got an unexpected keyword argument '${extra[0]}'`,
        );
      t.initialized = true;
      return { status: 200, body: { message: "Weight transfer initialized" } };
    }
    case "/start_weight_update":
      if (!t.initialized)
        return err(500, "Disk weight transfer not initialized. Call init_transfer_engine() first.");
      if (t.active)
        return err(
          500,
          "start_weight_update called while a weight update is already active. Call finish_weight_update first.",
        );
      t.active = true;
      t.session = { path: null };
      return { status: 200, body: { message: "Weight update started" } };
    case "/update_weights": {
      if (!t.active) return err(500, "start_weight_update must be called before update_weights.");
      const bad = t.session
        ? await badCheckpoint(s, (b.update_info as Json).path, t.session.path !== null)
        : "start_weight_update must be called before loading a checkpoint";
      if (bad || !t.session) {
        t.session = null;
        t.active = false;
        return err(500, bad ?? "");
      }
      t.session.path = (b.update_info as Json).path as string;
      return { status: 200, body: { message: "Weights updated" } };
    }
    case "/finish_weight_update": {
      const v = b.weight_version;
      if (v !== undefined && v !== null && typeof v !== "string")
        return { status: 422, body: { detail: "weight_version: Input should be a valid string" } };
      if (!t.active)
        return err(500, "start_weight_update must be called before finish_weight_update.");
      if (!t.session) return err(500, "No shared-disk weight update is active");
      const loaded = t.session.path;
      t.session = null;
      if (loaded === null)
        return err(500, "No checkpoint was loaded during the shared-disk update session");
      t.active = false;
      w.modelPath = loaded;
      if (typeof v === "string") s.config.weightVersion = v;
      return { status: 200, body: { message: "Weight update finished" } };
    }
  }
  return undefined;
}

/** Why the disk engine refuses `path` (its own checks, then a load in transformers), or undefined. */
async function badCheckpoint(
  s: FakeServer,
  path: unknown,
  second: boolean,
): Promise<string | undefined> {
  if (second) return "The disk backend accepts exactly one checkpoint per update session";
  if (typeof path !== "string" || !path)
    return "`path` must be a non-empty absolute local directory";
  if (!isAbsolute(path)) return "`path` must be an absolute local directory";
  if (!existsSync(path) || !statSync(path).isDirectory())
    return `Shared-disk checkpoint path must be a local directory: ${path}`;
  if (!readdirSync(path).some((f) => f.endsWith(".safetensors")))
    return `Shared-disk checkpoint directory contains no safetensors files: ${path}`;
  const bad = await inspect(path, "full", s.options.weightSync?.baseModel);
  return bad ? `Failed to load the checkpoint at ${path}: ${bad}` : undefined;
}
