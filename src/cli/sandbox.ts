/**
 * `rllm sandbox run -- CMD ARGS...`: run one command in a fresh sandbox of the configured backend
 * and print one JSON object — exit code, signal, stdout and stderr (each cut at --max-output),
 * whether it timed out, the limit that stopped it, wall and CPU seconds: the ExecResult the
 * library's `sandbox.exec()` returns. The exit status is 0 whenever the command ran (its own is
 * in the JSON); a sandbox that cannot be made is an error.
 *
 *   rllm sandbox run --timeout 5 --memory 256 -- python3 -c 'print(1)'
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { Command } from "commander";
import { ConfigError, loadConfig } from "../config/index.js";
import { createSandboxBackend } from "../sandbox/registry.js";
import type { ExecResult, SandboxFile } from "../sandbox/types.js";
import { SANDBOX_RUN_FLAGS } from "./flag-tables.js";
import { addFlags, type FlagValues, flagLayer } from "./flags.js";

export type SandboxRunFlags = FlagValues<typeof SANDBOX_RUN_FLAGS>;

/** Runs `argv` as `rllm sandbox run` does and returns what it prints. */
export async function sandboxRun(argv: string[], flags: SandboxRunFlags): Promise<ExecResult> {
  if (argv.length === 0) {
    throw new ConfigError(
      "rllm sandbox run needs a command after --, e.g. rllm sandbox run -- python3 -c 'print(1)'",
    );
  }
  const config = loadConfig({ file: flags.config, flags: flagLayer(SANDBOX_RUN_FLAGS, flags) });
  const files = flags.workdir ? workdirFiles(flags.workdir) : [];
  const stdin =
    flags.stdin === undefined ? undefined : readFileSync(flags.stdin === "-" ? 0 : flags.stdin);
  const backend = await createSandboxBackend(config.sandbox);
  try {
    const sandbox = await backend.create({ snapshot: { files } });
    try {
      return await sandbox.exec(argv, {
        timeoutS: flags.timeout,
        maxOutputBytes: flags.maxOutput,
        stdin,
      });
    } finally {
      await sandbox.close();
    }
  } finally {
    await backend.close();
  }
}

/** Every regular file under `dir`, relative to it, with its bytes and mode. */
function workdirFiles(dir: string): SandboxFile[] {
  let stat: ReturnType<typeof statSync>;
  try {
    stat = statSync(dir);
  } catch {
    throw new ConfigError(`--workdir ${dir}: no such directory`);
  }
  if (!stat.isDirectory()) throw new ConfigError(`--workdir ${dir}: not a directory`);
  const files: SandboxFile[] = [];
  const walk = (d: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const full = join(d, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) {
        files.push({
          path: relative(dir, full),
          content: readFileSync(full),
          mode: statSync(full).mode & 0o7777,
        });
      }
    }
  };
  walk(dir);
  return files;
}

export function sandboxCommand(): Command {
  const sandbox = new Command("sandbox").description("Run untrusted code in a sandbox.");
  const run = new Command("run")
    .description("Run one command in a fresh sandbox and print the result as one JSON object.")
    .argument("<command...>", "the command and its arguments (after --)");
  addFlags(run, SANDBOX_RUN_FLAGS).action(async (argv: string[], flags: SandboxRunFlags) => {
    console.log(JSON.stringify(await sandboxRun(argv, flags)));
  });
  sandbox.addCommand(run);
  return sandbox;
}
