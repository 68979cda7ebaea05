/**
 * Agents that cannot take arguments — a CLI harness (Codex, Claude Code), a Python script, anything
 * that reads OPENAI_BASE_URL / ANTHROPIC_BASE_URL — run as a child process per rollout, with the
 * session's URL and token in their environment and the task as JSON on stdin. Their LLM calls go
 * through the gateway like any other agent's, so the traces are the trajectory.
 */
import { spawn } from "node:child_process";
import type { Task } from "../types/index.js";
import { type Rollout, rollout } from "./rollout.js";

export interface ProcessRolloutOptions {
  /** Program to run; with `shell: true`, a shell command line. */
  command: string;
  args?: string[];
  shell?: boolean;
  cwd?: string;
  /** Extra environment variables (the session's are added on top). */
  env?: Record<string, string>;
  name?: string;
  /** Grace period between SIGTERM and SIGKILL when the rollout is aborted (ms). */
  killGraceMs?: number;
}

export class AgentProcessError extends Error {
  constructor(
    message: string,
    readonly exitCode: number | null,
    readonly stderr: string,
  ) {
    super(message);
    this.name = "AgentProcessError";
  }
}

/** The environment a child-process agent sees for one session. */
export function sessionEnv(config: {
  baseURL: string;
  sessionURL: string;
  apiKey: string;
  model: string;
  sessionId: string;
}): Record<string, string> {
  return {
    OPENAI_BASE_URL: config.baseURL,
    OPENAI_API_BASE: config.baseURL,
    OPENAI_API_KEY: config.apiKey,
    ANTHROPIC_BASE_URL: config.sessionURL,
    ANTHROPIC_API_KEY: config.apiKey,
    ANTHROPIC_AUTH_TOKEN: config.apiKey,
    RLLM_SESSION_ID: config.sessionId,
    RLLM_MODEL: config.model,
    OPENAI_MODEL: config.model,
  };
}

export function processRollout(options: ProcessRolloutOptions): Rollout {
  const name =
    options.name ??
    options.command
      .split(/[\\/\s]/)
      .filter(Boolean)
      .at(-1) ??
    "process";
  return rollout(
    (task: Task, config) =>
      new Promise<void>((resolve, reject) => {
        const child = spawn(options.command, options.args ?? [], {
          cwd: options.cwd,
          shell: options.shell ?? false,
          env: {
            ...process.env,
            ...options.env,
            ...sessionEnv(config),
            RLLM_TASK: JSON.stringify(task),
          },
          stdio: ["pipe", "pipe", "pipe"],
          // Its own process group, so an abort kills the agent and everything it started.
          detached: true,
        });
        let stderr = "";
        // Drained so a chatty agent never blocks on a full pipe; its answer is in the traces.
        child.stdout.resume();
        child.stderr.on("data", (d: Buffer) => {
          stderr = (stderr + d.toString()).slice(-16 * 1024);
        });
        child.stdin.on("error", () => {
          // The agent may exit without reading its task; that is its business.
        });
        child.stdin.end(JSON.stringify(task));
        const kill = (signal: NodeJS.Signals) => {
          if (child.pid === undefined || child.exitCode !== null) return;
          try {
            process.kill(-child.pid, signal);
          } catch {
            // already gone
          }
        };
        const onAbort = () => {
          kill("SIGTERM");
          setTimeout(() => kill("SIGKILL"), options.killGraceMs ?? 2_000).unref();
        };
        if (config.signal.aborted) onAbort();
        config.signal.addEventListener("abort", onAbort, { once: true });
        child.on("error", (err) => {
          config.signal.removeEventListener("abort", onAbort);
          reject(
            new AgentProcessError(
              `cannot start agent "${options.command}": ${err.message}`,
              null,
              stderr,
            ),
          );
        });
        child.on("close", (code, signal) => {
          config.signal.removeEventListener("abort", onAbort);
          if (code === 0) {
            resolve();
            return;
          }
          const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
          const tail = stderr.trim().split("\n").slice(-5).join("\n");
          reject(
            new AgentProcessError(
              `agent "${options.command}" ${how}${tail ? `: ${tail}` : ""}`,
              code,
              stderr,
            ),
          );
        });
      }),
    { name },
  );
}
