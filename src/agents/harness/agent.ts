/**
 * The CLI harness runner: a Rollout that runs a coding CLI (a HarnessDefinition) unchanged on the
 * task, in the task's sandbox, with its model calls going to the episode's gateway session.
 *
 *   const agent = harnessAgent("claude-code", { timeoutS: 900 })
 *
 * One episode: open the task environment (agents/environment.ts: a plain task's files, or a
 * Harbor task's workdir and paths), its sandbox with the CLI's install dir mounted read-only,
 * HOME, CLI-sized limits and no network but the gateway (below) → write the definition's config
 * files under HOME → run its command on the instruction in the task's cwd, with its env and a
 * wall-clock timeout → the task's verifier, when it has one, after every ending of the CLI (as the
 * tool agent does: a CLI that failed may still have done the work): `info.verifier`, or
 * `info.verifierError` when it produced no reward → release the environment (always). The steps
 * are the session's traces: the rollout returns one trajectory without steps and the engine fills
 * it from every call the CLI made (engine/episode.ts), token ids and logprobs included.
 *
 * Edge cases, decided once:
 * - The CLI not installed, or installed where the sandbox's user cannot reach it (install.ts), and
 *   node (the gateway forwarder's) where it cannot reach it (nvm under root's 0700 HOME), are
 *   errors when harnessAgent() is called (the run's startup), saying what to do; never at the
 *   first episode.
 * - How the CLI ended, as the episode's error (terminationReason "error", or "timeout"), its
 *   message saying which, then the CLI's final message when it printed one (its API error, say),
 *   then the stderr tail (stdout's when stderr is empty): "failed to start" (exit 126/127: the executable or node
 *   is missing in the sandbox), "exited with code N", "was killed by SIGNAL" (with the sandbox
 *   limit that stopped it), "timed out after N s". The engine's abort ends the episode without
 *   the verifier.
 * - A 5xx the gateway recorded while the CLI failed makes the engine count an infrastructure
 *   failure (it reads the traces), as for any agent; the runner itself throws only on the engine's
 *   abort and on a sandbox that could not be had.
 * - The CLI's wall-clock limit is `timeoutS`, or a Harbor task's [agent].timeout_sec when shorter.
 * - info.harness: name, version, exitCode, signal, limit, wallSeconds and stdout/stderr clipped
 *   to maxOutputChars (head and tail); info.answer: the CLI's final message, when it printed one.
 *
 * Network: the sandbox has none; the CLI reaches its session's model API on the gateway, and
 * nothing else (no admin route), through tunnel.ts (a forwarder on the sandbox's own loopback, a
 * Unix socket to the host's gateway), with the session URLs rewritten to 127.0.0.1. An https gateway cannot be tunnelled (its certificate names its
 * host): the sandbox then shares the host's network (`network: true`; on bwrap the CLI and every
 * command it runs can reach any service the host can, its loopback included).
 */
import { realpathSync } from "node:fs";
import { dirname } from "node:path";
import { z } from "zod";
import type { SandboxSource } from "../../sandbox/shared.js";
import { sharedSandboxes } from "../../sandbox/shared.js";
import type { ExecResult, SandboxLimits, SandboxSpec } from "../../sandbox/types.js";
import { type Rollout, type RolloutConfig, rollout } from "../../sdk/index.js";
import type { Task, TerminationReason } from "../../types/index.js";
import {
  openTaskEnvironment,
  runVerifier,
  type TaskEnvironment,
  type Verified,
} from "../environment.js";
import { clip } from "../tools.js";
import {
  HarnessNotInstalledError,
  type LocatedHarness,
  locateHarness,
  unreachableReason,
} from "./install.js";
import { type GatewayTunnel, openGatewayTunnel, tunnelTarget } from "./tunnel.js";
import type { HarnessContext, HarnessSetup } from "./types.js";

export const HarnessAgentOptionsSchema = z.strictObject({
  /** Wall-clock limit of the CLI's run, seconds (keep it under the engine's timeout). */
  timeoutS: z.number().positive().default(600),
  /** An npm prefix holding the CLI (see install.ts; env RLLM_HARNESS_<NAME> wins). */
  installDir: z.string().min(1).optional(),
  /** HOME of the CLI inside the sandbox: a writable dir the runner creates. */
  home: z
    .string()
    .regex(/^\/[^\0]*$/, "must be an absolute path")
    .default("/tmp/rllm-home"),
  /** Characters of the CLI's stdout and of its stderr kept in info.harness. */
  maxOutputChars: z.number().int().positive().default(20_000),
});
export type HarnessAgentSettings = z.infer<typeof HarnessAgentOptionsSchema>;
export type HarnessAgentOptions = z.input<typeof HarnessAgentOptionsSchema> & {
  /** Where the episode's sandbox comes from (default: the process's shared pool). */
  sandboxes?: SandboxSource;
};

/**
 * Limits a coding CLI needs (a 200 MB native binary or a Node bundle, its threads, the files it
 * keeps under HOME); the backend's defaults are sized for one test command.
 */
const HARNESS_LIMITS: Partial<SandboxLimits> = {
  memoryMb: 4096,
  cpuSeconds: 3600,
  pids: 1024,
  diskMb: 2048,
  fileMb: 512,
  openFiles: 4096,
};

/** Bytes of the CLI's stdout (and of its stderr) the sandbox keeps. */
const MAX_OUTPUT_BYTES = 8 << 20;

export function harnessAgent(name: string, options: HarnessAgentOptions = {}): Rollout {
  const { sandboxes = sharedSandboxes, ...rest } = options;
  const parsed = HarnessAgentOptionsSchema.safeParse(rest);
  if (!parsed.success) {
    const i = parsed.error.issues[0]!;
    throw new TypeError(`harnessAgent option ${i.path.join(".") || "(options)"}: ${i.message}`);
  }
  const settings = parsed.data;
  const located = locateHarness(name, { installDir: settings.installDir });
  const node = realpathSync(process.execPath);
  const blocked = unreachableReason(located.installDir);
  if (blocked)
    throw new HarnessNotInstalledError(
      `harness ${name}: the sandbox cannot reach its install dir: ${blocked}`,
    );
  const nodeBlocked = unreachableReason(
    dirname(node),
    "run rllm with a node installed elsewhere (e.g. under /usr)",
  );
  if (nodeBlocked)
    throw new HarnessNotInstalledError(
      `harness ${name}: the sandbox cannot run node (${node}), which carries the CLI's gateway calls: ${nodeBlocked}`,
    );
  const spec = sandboxSpec(located, settings);
  return rollout(
    (task, config) => episode(task, config, { located, settings, spec, sandboxes, node }),
    { name },
  );
}

/** The sandbox a CLI runs in: its install dir (and node's, outside /usr) mounted, HOME, limits. */
export function sandboxSpec(located: LocatedHarness, s: HarnessAgentSettings): SandboxSpec {
  const hostPaths = [located.installDir, realpathSync(located.installDir)];
  const nodeDir = dirname(dirname(realpathSync(process.execPath)));
  if (!nodeDir.startsWith("/usr")) hostPaths.push(nodeDir);
  return {
    hostPaths: [...new Set(hostPaths)],
    env: { HOME: s.home },
    limits: HARNESS_LIMITS,
  };
}

interface Ending {
  reason: TerminationReason;
  error?: string;
}

interface Runner {
  located: LocatedHarness;
  settings: HarnessAgentSettings;
  spec: SandboxSpec;
  sandboxes: SandboxSource;
  /** node's path (the same in the sandbox), for the gateway forwarder. */
  node: string;
}

async function episode(task: Task, config: RolloutConfig, r: Runner) {
  const target = tunnelTarget(config.sessionURL);
  const tunnel = target ? await openGatewayTunnel(target) : undefined;
  try {
    const spec: SandboxSpec = tunnel
      ? { ...r.spec, hostPaths: [...(r.spec.hostPaths ?? []), tunnel.dir] }
      : { ...r.spec, network: true };
    const env = await openTaskEnvironment(task, {
      sandboxes: r.sandboxes,
      spec,
      signal: config.signal,
    });
    return await inEnvironment(env, config, r, tunnel, runTimeout(env, r.settings.timeoutS));
  } finally {
    await tunnel?.close();
  }
}

async function inEnvironment(
  env: TaskEnvironment,
  config: RolloutConfig,
  { located, settings: s, node }: Runner,
  tunnel: GatewayTunnel | undefined,
  timeoutS: number,
) {
  const name = located.definition.name;
  let run: ExecResult | undefined;
  let ending: Ending;
  let verified: Verified | undefined;
  try {
    const ctx: HarnessContext = {
      sessionURL: tunnel ? tunnel.url(config.sessionURL) : config.sessionURL,
      baseURL: tunnel ? tunnel.url(config.baseURL) : config.baseURL,
      apiKey: config.apiKey,
      model: config.model,
      instruction: env.instruction,
      cwd: env.cwd,
      home: s.home,
      installDir: located.installDir,
      timeoutS,
    };
    const setup = located.definition.configure(ctx);
    await writeHome(env, s.home, setup);
    const argv = located.definition.command(ctx);
    run = await env.sandbox.exec(inDir(env.cwd, tunnel ? tunnel.wrap(node, argv) : argv), {
      env: { ...setup.env, HOME: s.home },
      timeoutS,
      maxOutputBytes: MAX_OUTPUT_BYTES,
      signal: config.signal,
    });
    if (config.signal.aborted) throw config.signal.reason;
    const said = located.definition.finalMessage?.(run.stdout);
    ending = runFailure(name, run, timeoutS, said) ?? { reason: "env_done" };
    if (env.verify) verified = await runVerifier(env, config.signal);
  } finally {
    await env.release();
  }
  const answer = run ? located.definition.finalMessage?.(run.stdout) : undefined;
  return {
    trajectories: [{ name, steps: [] }],
    terminationReason: ending.reason,
    info: {
      ...(answer !== undefined ? { answer } : {}),
      ...(ending.error !== undefined ? { error: ending.error } : {}),
      ...verified,
      harness: harnessInfo(located, run, s.maxOutputChars),
    },
  };
}

/** The CLI's time: timeoutS, or the task's own agent time (Harbor's [agent].timeout_sec) when shorter. */
export function runTimeout(env: Pick<TaskEnvironment, "timeoutSec">, timeoutS: number): number {
  return env.timeoutSec !== undefined ? Math.min(env.timeoutSec, timeoutS) : timeoutS;
}

/** argv run in `cwd` (an absolute path, which exec's relative cwd cannot name). */
function inDir(cwd: string, argv: string[]): string[] {
  return ["/bin/sh", "-c", 'cd "$1" && shift && exec "$@"', "sh", cwd, ...argv];
}

/** HOME made, and each config file written under it (mode 0600 unless given). */
async function writeHome(env: TaskEnvironment, home: string, setup: HarnessSetup): Promise<void> {
  const made = await env.sandbox.exec(["mkdir", "-p", home], { timeoutS: 30 });
  if (made.exitCode !== 0) throw new Error(`could not create HOME ${home}: ${made.stderr}`);
  for (const file of setup.files) {
    if (file.path.startsWith("/") || file.path.split("/").includes("..")) {
      throw new Error(`harness config file ${file.path} must be relative to HOME, without ".."`);
    }
    const path = `${home}/${file.path}`;
    const mode = (file.mode ?? 0o600).toString(8);
    const wrote = await env.sandbox.exec(
      [
        "/bin/sh",
        "-c",
        'mkdir -p "$(dirname "$1")" && cat > "$1" && chmod "$2" "$1"',
        "sh",
        path,
        mode,
      ],
      { stdin: file.content, timeoutS: 30 },
    );
    if (wrote.exitCode !== 0) throw new Error(`could not write ${path}: ${wrote.stderr}`);
  }
}

/**
 * How a run that did not succeed ended, as the episode's error (with `said`, the CLI's own final
 * message, e.g. its API error); undefined for a clean exit.
 */
export function runFailure(
  name: string,
  run: ExecResult,
  timeoutS: number,
  said?: string,
): Ending | undefined {
  if (run.exitCode === 0 && !run.timedOut) return undefined;
  const tail = (said ? `: ${said.slice(0, 2000)}` : "") + outputTail(run);
  if (run.timedOut) {
    return { reason: "timeout", error: `harness ${name} timed out after ${timeoutS} s${tail}` };
  }
  if (run.exitCode === 126 || run.exitCode === 127) {
    return {
      reason: "error",
      error: `harness ${name} failed to start (exit ${run.exitCode})${tail}`,
    };
  }
  const how =
    run.exitCode !== null
      ? `exited with code ${run.exitCode}`
      : `was killed by ${run.signal}${run.limit ? ` (sandbox limit: ${run.limit})` : ""}`;
  return { reason: "error", error: `harness ${name} ${how}${tail}` };
}

/** The last lines of stderr (of stdout when stderr is empty), for an error message. */
function outputTail(run: ExecResult): string {
  const text = (run.stderr.trim() ? run.stderr : run.stdout).trim();
  if (!text) return "; it printed nothing";
  return `; its ${run.stderr.trim() ? "stderr" : "stdout"} ends:\n${text.slice(-2000)}`;
}

function harnessInfo(located: LocatedHarness, run: ExecResult | undefined, max: number) {
  return {
    name: located.definition.name,
    version: located.version,
    ...(run
      ? {
          exitCode: run.exitCode,
          signal: run.signal,
          limit: run.limit,
          wallSeconds: run.wallSeconds,
          stdout: clip(run.stdout, max, run.stdoutTruncated),
          stderr: clip(run.stderr, max, run.stderrTruncated),
        }
      : {}),
  };
}
