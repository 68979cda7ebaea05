/** `rllm gateway`: serve the model gateway in the foreground until SIGINT/SIGTERM. */
import { join } from "node:path";
import { Command, Option } from "commander";
import { ConfigError, type ConfigLayer, loadConfig, UpstreamKindSchema } from "../config/index.js";
import { Gateway } from "../gateway/server.js";
import { rllmHome } from "../home.js";

export function gatewayCommand(): Command {
  return new Command("gateway")
    .description("Serve the model gateway: sessions, token capture, traces.")
    .option("--port <port>", "port to listen on (default 8089)", parsePort)
    .option("--host <host>", "address to bind (default 127.0.0.1)")
    .option(
      "--upstream <url>",
      "model server URL; repeat for several. Prefix the kind as vllm=URL, sglang=URL or openai=URL (default vllm)",
      collect,
      [],
    )
    .option("--upstream-api-key <key>", "API key sent to hosted upstreams")
    .option("--model <name>", "pin the model name sent upstream")
    .option("--admin-key <key>", "require this key (Bearer) on admin routes")
    .option(
      "--tokenizer <dir>",
      "model dir with tokenizer.json + tokenizer_config.json (token-in/token-out; needed for sglang)",
    )
    .option(
      "--db <path>",
      "SQLite file for sessions and traces (default $RLLM_HOME/gateway/traces.db)",
    )
    .addOption(
      new Option("--store <kind>", "use 'memory' for a store that is gone on exit").choices([
        "memory",
      ]),
    )
    .addOption(
      new Option(
        "--durability <mode>",
        "'normal' survives kill -9; 'full' also an OS crash",
      ).choices(["normal", "full"]),
    )
    .option("--config <file>", "YAML or JSON config file")
    .action(async (opts: GatewayFlags) => {
      const config = loadConfig({ file: opts.config, flags: flagsToConfig(opts) });
      if (config.gateway.upstreams.length === 0) {
        throw new ConfigError(
          "no upstream: pass --upstream URL (e.g. --upstream http://127.0.0.1:8000 for a vLLM server)",
        );
      }
      const storePath =
        config.store.path === "memory" &&
        !opts.store &&
        !opts.db &&
        !process.env.RLLM_STORE_PATH &&
        !opts.config
          ? join(rllmHome(), "gateway", "traces.db")
          : config.store.path;
      const gw = new Gateway({
        config: config.gateway,
        storePath,
        storeSynchronous: config.store.synchronous,
      });
      const url = await gw.listen();
      console.log(`rllm gateway listening on ${url}`);
      console.log(`  store: ${storePath === "memory" ? "in memory (lost on exit)" : storePath}`);
      for (const u of gw.pool.list()) console.log(`  upstream: ${u.kind} ${u.url}`);
      console.log(
        `  admin key: ${config.gateway.adminKey ? "required" : "not set (admin routes are open)"}`,
      );
      const stop = async (signal: string) => {
        console.log(`rllm gateway: ${signal}, closing`);
        await gw.close();
        process.exit(0);
      };
      process.once("SIGINT", () => void stop("SIGINT"));
      process.once("SIGTERM", () => void stop("SIGTERM"));
    });
}

interface GatewayFlags {
  port?: number;
  host?: string;
  upstream: string[];
  upstreamApiKey?: string;
  model?: string;
  adminKey?: string;
  tokenizer?: string;
  db?: string;
  store?: "memory";
  durability?: "normal" | "full";
  config?: string;
}

export function flagsToConfig(opts: GatewayFlags): ConfigLayer {
  if (opts.db && opts.store)
    throw new ConfigError("--db and --store memory exclude each other; pass one");
  const gateway: ConfigLayer = {
    port: opts.port,
    host: opts.host,
    model: opts.model,
    adminKey: opts.adminKey,
    tokenizer: opts.tokenizer,
  };
  if (opts.upstream.length > 0) {
    gateway.upstreams = opts.upstream.map((spec) => {
      const m = /^([a-z]+)=(.+)$/.exec(spec);
      let kind = "vllm";
      let url = spec;
      if (m) {
        const k = UpstreamKindSchema.safeParse(m[1]);
        if (!k.success) {
          throw new ConfigError(
            `--upstream ${spec}: unknown kind "${m[1]}"; use vllm=, sglang= or openai=`,
          );
        }
        kind = k.data;
        url = m[2]!;
      }
      return { url, kind, ...(opts.upstreamApiKey ? { apiKey: opts.upstreamApiKey } : {}) };
    });
  }
  const store: ConfigLayer = {
    path: opts.store === "memory" ? "memory" : opts.db,
    synchronous: opts.durability,
  };
  return { gateway, store };
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function parsePort(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new ConfigError(`--port ${v}: must be an integer from 0 to 65535`);
  return n;
}
