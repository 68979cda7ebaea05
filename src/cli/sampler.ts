/**
 * `rllm sampler launch vllm|sglang --model M --gpus 0,1 (--lora-rank R | --full-weights)`: the
 * command that starts a vLLM or SGLang server the way `rllm train --sampler` needs it, run when
 * the engine is installed (`--dry-run`: only printed). The flags weight sync needs, per engine
 * (sampler contracts §1, §2, §4, §5; src/backends/remote/ makes the calls):
 *
 *   vLLM LoRA     VLLM_ALLOW_RUNTIME_LORA_UPDATING=True (registers /v1/load_lora_adapter and
 *                 /v1/unload_lora_adapter), --enable-lora, --max-lora-rank (the smallest of
 *                 vLLM's allowed ranks ≥ R), --max-loras and --max-cpu-loras keep-versions + 1
 *                 (the kept versions and the new one while it loads)
 *   vLLM full     VLLM_SERVER_DEV_MODE=1 (registers /pause, /resume, /reset_prefix_cache, the
 *                 weight-transfer routes and /collective_rpc), and for --full-weights-mode
 *                 transfer (the default; backend.sampler.fullWeights) --weight-transfer-config
 *                 '{"backend":"disk"}' (the engine behind /update_weights {path}); reload needs
 *                 nothing more
 *   SGLang LoRA   --enable-lora --max-lora-rank R --lora-target-modules all (no adapter is loaded
 *                 at launch, so the rank and modules must be given), --max-loras-per-batch and
 *                 --max-loaded-loras keep-versions + 1
 *   SGLang full   --weight-version 0 (the version the trainer starts from)
 *
 * Both: the GPUs as CUDA_VISIBLE_DEVICES and tensor parallelism over all of them. Token ids need
 * no flag: the gateway asks for them per request (vLLM `return_token_ids`, SGLang's /generate).
 * The server runs in the foreground as `rllm worker`'s torchrun does (shell.ts: signals passed
 * on, its exit code, 128 + N for a signal's death).
 */
import { spawnSync } from "node:child_process";
import { Command } from "commander";
import { ConfigError } from "../config/index.js";
import { rowDefault, SAMPLER_LAUNCH_FLAGS } from "./flag-tables.js";
import { addFlags, type FlagValues } from "./flags.js";
import { runForeground, shellQuote } from "./shell.js";

export type LaunchFlags = FlagValues<typeof SAMPLER_LAUNCH_FLAGS>;

export interface LaunchCommand {
  env: Record<string, string>;
  argv: string[];
}

/** A flag's default as its row states it (what --help shows). */
const launchDefault = (flag: string) => rowDefault(SAMPLER_LAUNCH_FLAGS, flag);

/** vLLM's --max-lora-rank accepts these values only. */
const VLLM_LORA_RANKS = [8, 16, 32, 64, 128, 256, 320, 512];

/** The server command for `engine` with these flags; a ConfigError names a bad or missing one. */
export function launchCommand(engine: string, f: LaunchFlags): LaunchCommand {
  if (engine !== "vllm" && engine !== "sglang")
    throw new ConfigError(`rllm sampler launch ${engine}: the engine is vllm or sglang`);
  if ((f.loraRank === undefined) === (f.fullWeights === undefined))
    throw new ConfigError(
      "rllm sampler launch needs one of --lora-rank R (a LoRA run: each version loads as an adapter) or --full-weights (full fine-tuning: each version reloads the weights)",
    );
  if (f.fullWeightsMode !== undefined && (engine !== "vllm" || f.fullWeights === undefined))
    throw new ConfigError(
      `--full-weights-mode is vLLM's, with --full-weights (how each full version loads)${engine === "vllm" ? "" : "; SGLang loads from disk one way: drop it"}`,
    );
  const gpus = f.gpus!;
  const keep = f.keepVersions ?? Number(launchDefault("--keep-versions"));
  const env: Record<string, string> = { CUDA_VISIBLE_DEVICES: gpus.join(",") };
  const host = f.host ?? String(launchDefault("--host"));
  const port = String(f.port ?? (engine === "vllm" ? 8000 : 30000));
  if (engine === "vllm") {
    const argv = ["vllm", "serve", f.model!, "--host", host, "--port", port];
    argv.push("--tensor-parallel-size", String(gpus.length));
    if (f.loraRank !== undefined) {
      const rank = VLLM_LORA_RANKS.find((r) => r >= f.loraRank!);
      if (rank === undefined)
        throw new ConfigError(
          `--lora-rank ${f.loraRank}: vLLM serves LoRA ranks up to ${VLLM_LORA_RANKS.at(-1)}`,
        );
      env.VLLM_ALLOW_RUNTIME_LORA_UPDATING = "True";
      argv.push("--enable-lora", "--max-lora-rank", String(rank));
      argv.push("--max-loras", String(keep + 1), "--max-cpu-loras", String(keep + 1));
    } else {
      env.VLLM_SERVER_DEV_MODE = "1";
      if ((f.fullWeightsMode ?? launchDefault("--full-weights-mode")) === "transfer")
        argv.push("--weight-transfer-config", JSON.stringify({ backend: "disk" }));
    }
    return { env, argv };
  }
  const argv = ["python3", "-m", "sglang.launch_server", "--model-path", f.model!];
  argv.push("--host", host, "--port", port, "--tp", String(gpus.length));
  if (f.loraRank !== undefined) {
    argv.push("--enable-lora", "--max-lora-rank", String(f.loraRank));
    argv.push("--lora-target-modules", "all");
    argv.push("--max-loras-per-batch", String(keep + 1), "--max-loaded-loras", String(keep + 1));
  } else argv.push("--weight-version", "0");
  return { env, argv };
}

/** One shell line: the environment, then the words, quoted where the shell needs it. */
export function shellLine(c: LaunchCommand): string {
  const env = Object.entries(c.env).map(([k, v]) => `${k}=${shellQuote(v)}`);
  return [...env, ...c.argv.map(shellQuote)].join(" ");
}

/** What to install when `engine` is missing, or undefined when it is there. */
function missing(engine: "vllm" | "sglang"): string | undefined {
  const r =
    engine === "vllm"
      ? spawnSync("vllm", ["--version"], { stdio: "ignore" })
      : spawnSync("python3", ["-c", "import sglang"], { stdio: "ignore" });
  if (!r.error && r.status === 0) return undefined;
  return engine === "vllm"
    ? "vLLM is not installed here (no `vllm` on PATH): pip install vllm"
    : 'SGLang is not installed for python3: pip install "sglang[all]"';
}

export function samplerCommand(): Command {
  const sampler = new Command("sampler").description(
    "Start the vLLM or SGLang servers `rllm train --sampler` generates on.",
  );
  const launch = sampler
    .command("launch")
    .argument("<engine>", "vllm or sglang")
    .description(
      "Print the server command with the flags weight sync needs, and run it (exit status: the server's). --dry-run only prints. When the engine is not installed, prints the command and what to install, and exits 1.",
    );
  addFlags(launch, SAMPLER_LAUNCH_FLAGS).action(async (engine: string, f: LaunchFlags) => {
    const c = launchCommand(engine, f);
    console.log(shellLine(c));
    const at = (flag: string) => c.argv[c.argv.indexOf(flag) + 1];
    const url = `http://${at("--host") === "0.0.0.0" ? "<this host>" : at("--host")}:${at("--port")}`;
    const reload =
      f.fullWeightsMode === "reload" ? " with backend.sampler.fullWeights: reload" : "";
    console.error(`then: rllm train ... --backend torch --sampler ${engine}=${url}${reload}`);
    if (f.dryRun) return;
    const why = missing(engine as "vllm" | "sglang");
    if (why) throw new Error(why);
    process.exitCode = await runForeground({ argv: c.argv, env: { ...process.env, ...c.env } })
      .exited;
  });
  return sampler;
}
