/** `rllm gateway`: serve the model gateway in the foreground until SIGINT/SIGTERM. */
import { Command } from "commander";
import { ConfigError, type ConfigLayer, loadConfig, type RllmConfig } from "../config/index.js";
import { Gateway } from "../gateway/server.js";
import { GATEWAY_FLAGS } from "./flag-tables.js";
import { addFlags, defaultGatewayStore, type FlagValues, flagLayer } from "./flags.js";
import { createLog } from "./log.js";

/** The parsed flags of `rllm gateway` (its table: GATEWAY_FLAGS in flag-tables.ts). */
type GatewayFlags = FlagValues<typeof GATEWAY_FLAGS>;

export function gatewayCommand(): Command {
  const cmd = new Command("gateway").description(
    "Serve the model gateway: sessions, token capture, traces.",
  );
  return addFlags(cmd, GATEWAY_FLAGS).action(async (opts: GatewayFlags) => {
    const config = loadConfig({ file: opts.config, flags: flagsToConfig(opts) });
    if (config.gateway.upstreams.length === 0) {
      throw new ConfigError(
        "no upstream: pass --upstream URL (e.g. --upstream http://127.0.0.1:8000 for a vLLM server)",
      );
    }
    const storePath = gatewayStorePath(config);
    const gw = new Gateway({
      config: config.gateway,
      storePath,
      storeSynchronous: config.store.synchronous,
    });
    const url = await gw.listen();
    const log = createLog({ write: (l) => console.log(l) });
    log.info(`rllm gateway listening on ${url}`);
    log.info(`  store: ${storePath === "memory" ? "in memory (lost on exit)" : storePath}`);
    for (const u of gw.pool.list()) log.info(`  upstream: ${u.kind} ${u.url}`);
    log.info(
      `  admin key: ${config.gateway.adminKey ? "required" : "not set (admin routes are open)"}`,
    );
    const stop = async (signal: string) => {
      log.info(`rllm gateway: ${signal}, closing`);
      await gw.close();
      process.exit(0);
    };
    process.once("SIGINT", () => void stop("SIGINT"));
    process.once("SIGTERM", () => void stop("SIGTERM"));
  });
}

/** The config layer of `rllm gateway`'s flags. */
export function flagsToConfig(opts: GatewayFlags): ConfigLayer {
  return flagLayer(GATEWAY_FLAGS, opts);
}

/**
 * Where `rllm gateway` keeps sessions and traces: store.path from any layer (--db, --store memory,
 * RLLM_STORE_PATH, a config file), else a file under $RLLM_HOME — with or without a config file.
 */
export function gatewayStorePath(
  config: Pick<RllmConfig, "store">,
  env: NodeJS.ProcessEnv = process.env,
): string {
  return config.store.path ?? defaultGatewayStore(env);
}
