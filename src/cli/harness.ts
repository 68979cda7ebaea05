/**
 * `rllm harness install NAME... | --all`: install CLI harnesses (their pinned npm packages) into
 * $RLLM_HOME/harnesses/NAME/, npm's progress shown; `rllm harness list`: each harness with its
 * pinned version and what is installed where. `--harness NAME` on `rllm eval` / `rllm train` runs
 * the episodes with harnessRollout() (src/agents/harness/).
 */
import { Command } from "commander";
import { harnessAgent } from "../agents/harness/agent.js";
import { harnessDir, installedVersion, installHarness } from "../agents/harness/install.js";
import { harnessDefinition, harnessNames } from "../agents/harness/registry.js";
import { ConfigError } from "../config/index.js";
import type { Rollout } from "../sdk/index.js";

/** The rollout of `--harness NAME`; its CLI's timeout is 80% of the engine's, leaving time for the verifier. */
export function harnessRollout(name: string, engineTimeoutSeconds: number): Rollout {
  if (!harnessNames().includes(name)) {
    throw new ConfigError(
      `--harness ${name}: unknown harness; the harnesses are ${harnessNames().join(", ")}`,
    );
  }
  return harnessAgent(name, { timeoutS: Math.max(1, Math.floor(engineTimeoutSeconds * 0.8)) });
}

/** The names `install` was given, checked; --all: every harness. */
export function installNames(names: string[], all: boolean): string[] {
  if (all && names.length)
    throw new ConfigError("rllm harness install: pass names or --all, not both");
  if (all) return harnessNames();
  if (!names.length) {
    throw new ConfigError(
      `rllm harness install: name the harnesses (${harnessNames().join(", ")}) or pass --all`,
    );
  }
  for (const name of names) {
    if (!harnessNames().includes(name)) {
      throw new ConfigError(
        `unknown harness "${name}"; the harnesses are ${harnessNames().join(", ")}`,
      );
    }
  }
  return names;
}

/** One line per harness: name, pinned package@version, installed version and dir (or "not installed"). */
export function harnessList(env: NodeJS.ProcessEnv = process.env): string[] {
  return harnessNames().map((name) => {
    const d = harnessDefinition(name);
    const { dir, source } = harnessDir(name, { env });
    const version = installedVersion(d, dir);
    const state = version
      ? `${version}${version === d.version ? "" : " (not the pinned version)"} in ${dir}${source === "env" ? " (from the environment)" : ""}`
      : `not installed (rllm harness install ${name})`;
    return `${name.padEnd(12)} ${`${d.package}@${d.version}`.padEnd(36)} ${state}`;
  });
}

export function harnessCommand(): Command {
  const harness = new Command("harness").description(
    "Coding-agent CLIs (Claude Code, Codex, Gemini CLI, opencode, Qwen Code) run as agents with --harness.",
  );
  harness
    .command("install")
    .description("Install harnesses' pinned npm packages into $RLLM_HOME/harnesses/NAME/.")
    .argument("[names...]", `harnesses to install: ${harnessNames().join(", ")}`)
    .option("--all", "install every harness")
    .action(async (names: string[], flags: { all?: boolean }) => {
      for (const name of installNames(names, flags.all ?? false)) {
        await installHarness(name, { log: (line) => console.error(line) });
      }
    });
  harness
    .command("list")
    .description("Each harness: its pinned package and what is installed where.")
    .action(() => {
      for (const line of harnessList()) console.log(line);
    });
  return harness;
}
