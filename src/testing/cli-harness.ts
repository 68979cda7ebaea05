/**
 * Runs a CLI harness definition (src/agents/harness/) for real on this host against a test stack's
 * session: writes configure()'s files under a fresh HOME, runs command() in a fresh working dir
 * with configure()'s environment (PATH and HOME only besides; stdin closed, as the runner gives
 * it), and returns its output and the session's traces. For the definitions' own tests; the
 * runner (agent.ts) runs them inside the task's sandbox.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { HarnessContext, HarnessDefinition } from "../agents/harness/types.js";
import { rllmHome } from "../home.js";
import type { TraceRecord } from "../types/index.js";
import type { Stack } from "./harness.js";

export interface HostRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Wall-clock seconds of the CLI's run. */
  seconds: number;
  /** The working dir the CLI ran in (removed by cleanup()). */
  cwd: string;
  traces: TraceRecord[];
  cleanup(): Promise<void>;
}

/**
 * The install dir of `def`: RLLM_HARNESS_<NAME>, else $RLLM_HOME/harnesses/<name>. Throws, naming
 * the install command, when the CLI is not there: a test of a real CLI never skips silently.
 */
export function installedHarness(def: HarnessDefinition): string {
  const key = `RLLM_HARNESS_${def.name.toUpperCase().replaceAll("-", "_")}`;
  const dir = process.env[key] || join(rllmHome(), "harnesses", def.name);
  if (!existsSync(join(dir, def.bin))) {
    throw new Error(
      `${def.name} is not installed in ${dir}: npm install --prefix ${dir} ${def.package}@${def.version} (or set ${key} to an install dir)`,
    );
  }
  return dir;
}

export async function runOnHost(
  def: HarnessDefinition,
  stack: Stack,
  options: { instruction: string; model?: string; timeoutS?: number },
): Promise<HostRun> {
  const installDir = installedHarness(def);
  const session = await stack.session();
  const root = await mkdtemp(join(tmpdir(), `rllm-${def.name}-`));
  const ctx: HarnessContext = {
    sessionURL: session.url,
    baseURL: `${session.url}/v1`,
    apiKey: session.token,
    model: options.model ?? "test-model",
    instruction: options.instruction,
    cwd: join(root, "work"),
    home: join(root, "home"),
    installDir,
    timeoutS: options.timeoutS ?? 120,
  };
  await mkdir(ctx.cwd, { recursive: true });
  const setup = def.configure(ctx);
  for (const f of setup.files) {
    await mkdir(dirname(join(ctx.home, f.path)), { recursive: true });
    await writeFile(join(ctx.home, f.path), f.content, { mode: f.mode ?? 0o600 });
  }
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: ctx.home, ...setup.env };
  const started = Date.now();
  const r = await spawnCollect(def.command(ctx), env, ctx.cwd, ctx.timeoutS * 1000);
  const seconds = (Date.now() - started) / 1000;
  const res = await stack.admin(`/sessions/${encodeURIComponent(session.id)}/traces`);
  return {
    ...r,
    seconds,
    cwd: ctx.cwd,
    traces: (res.body as { data: TraceRecord[] }).data,
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
}

/** Runs argv with stdin closed; kills it after `timeoutMs`. */
function spawnCollect(
  argv: string[],
  env: Record<string, string>,
  cwd: string,
  timeoutMs: number,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => {
      stdout += d;
    });
    child.stderr.on("data", (d: Buffer) => {
      stderr += d;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * The checks every real-CLI test makes of its traces: each call recorded with `api`, status 200,
 * prompt and completion token ids from the upstream, a logprob per token, and each prompt
 * extending the previous prompt and completion (the conversation is token-exact).
 */
export function checkTraces(traces: TraceRecord[], api: TraceRecord["api"]): string | undefined {
  let previous: number[] = [];
  for (const [i, t] of traces.entries()) {
    const completion = t.choices[0]?.completionIds ?? [];
    const problem =
      t.api !== api
        ? `api ${t.api}, not ${api}`
        : t.status !== 200
          ? `status ${t.status}: ${t.error}`
          : t.tokenSource !== "upstream"
            ? `token source ${t.tokenSource}`
            : !t.promptIds?.length || completion.length === 0
              ? "no token ids"
              : t.choices[0]?.logprobs?.length !== completion.length
                ? "not a logprob per completion token"
                : previous.some((id, k) => t.promptIds![k] !== id)
                  ? "the prompt does not extend the previous prompt and completion"
                  : undefined;
    if (problem) return `trace ${i}: ${problem}`;
    previous = [...t.promptIds!, ...completion];
  }
  return undefined;
}
