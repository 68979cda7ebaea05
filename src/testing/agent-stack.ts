/**
 * What the acting-agent tests share (tool agent, MCP, CLI harnesses): an in-process gateway in
 * front of a scripted fake vLLM upstream, sandbox sources that count or look inside, and the
 * Harbor fixture the CLIs solve.
 */
import { fileURLToPath } from "node:url";
import { InProcessGateway } from "../engine/index.js";
import { closeSharedSandboxes, type SandboxSource, sharedSandboxes } from "../sandbox/shared.js";
import type { Sandbox } from "../sandbox/types.js";
import { type FakeRespond, type FakeUpstream, startFakeUpstream } from "./fake-upstream.js";

export interface AgentStack {
  up: FakeUpstream;
  gw: InProcessGateway;
}

/** The scripted model and a gateway in front of it. */
export async function startAgentStack(respond: FakeRespond): Promise<AgentStack> {
  const up = await startFakeUpstream({ kind: "vllm", respond });
  const gw = await InProcessGateway.start({
    upstreams: [{ url: up.url, kind: "vllm" }],
    healthCheckIntervalMs: 0,
    connectRetries: 0,
  });
  return { up, gw };
}

/** Closes the stack and the process's shared sandbox pool. */
export async function stopAgentStack(stack: AgentStack): Promise<void> {
  await stack.gw.close();
  await stack.up.close();
  await closeSharedSandboxes();
}

/** The Harbor fixture every CLI solves: write /app/count_words.sh and run it. */
export const WRITE_SCRIPT_FIXTURE = fileURLToPath(
  new URL("../benchmarks/fixtures/harbor/write-script", import.meta.url),
);

/** The shared pool; what `command` prints in each sandbox just before it goes back. */
export function reading(command: string): SandboxSource & { seen: string[] } {
  const source = {
    seen: [] as string[],
    acquire: (spec?: Parameters<SandboxSource["acquire"]>[0]) => sharedSandboxes.acquire(spec),
    async release(sandbox: Sandbox) {
      source.seen.push((await sandbox.exec(["sh", "-c", command])).stdout);
      await sharedSandboxes.release(sandbox);
    },
  };
  return source;
}

/** The shared pool, counting what is acquired and released. */
export function counting(): SandboxSource & { acquired: number; released: number } {
  const source = {
    acquired: 0,
    released: 0,
    async acquire(spec?: Parameters<SandboxSource["acquire"]>[0]) {
      const s = await sharedSandboxes.acquire(spec);
      source.acquired++;
      return s;
    },
    async release(s: Sandbox) {
      source.released++;
      await sharedSandboxes.release(s);
    },
  };
  return source;
}
