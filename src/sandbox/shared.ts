/**
 * The sandboxes of this process: one pool, made on first use from the run's `sandbox` config
 * section (or its defaults), shared by the graders and agents of a run. `rllm eval`/`rllm train`
 * call configureSandboxes(config.sandbox) at start; a library user may do the same, or pass a
 * pool of their own to codeGrader().
 */
import { SandboxPool } from "./pool.js";
import {
  checkSandboxConfig,
  createSandboxBackend,
  type SandboxConfig,
  SandboxConfigSchema,
} from "./registry.js";
import type { Sandbox, SandboxSpec } from "./types.js";

/** Where graders and agents get sandboxes: a pool, or anything with the same two calls. */
export interface SandboxSource {
  acquire(spec?: SandboxSpec): Promise<Sandbox>;
  release(sandbox: Sandbox): Promise<void>;
}

let config: SandboxConfig | undefined;
let pool: Promise<SandboxPool> | undefined;

/**
 * Use `section` for the sandboxes made from now on (closes the current pool, if any). A limit its
 * backend cannot enforce is an error now, not at the first sandbox.
 */
export async function configureSandboxes(section: SandboxConfig): Promise<void> {
  checkSandboxConfig(section);
  await closeSharedSandboxes();
  config = section;
}

/** The process's pool, started on first use. */
export function sharedSandboxPool(): Promise<SandboxPool> {
  if (!pool) {
    const made = (async () => {
      const section = config ?? SandboxConfigSchema.parse({});
      const backend = await createSandboxBackend(section);
      return new SandboxPool(backend, {
        size: section.poolSize,
        spec: { network: section.network },
      });
    })();
    pool = made;
    made.catch(() => {
      if (pool === made) pool = undefined; // a later call tries again; a newer pool stays
    });
  }
  return pool;
}

/** Which pool handed out each sandbox, so a release goes back to it even after a reconfigure. */
const handedOutBy = new WeakMap<Sandbox, SandboxPool>();

/** A SandboxSource over the shared pool (created lazily, on the first acquire). */
export const sharedSandboxes: SandboxSource = {
  async acquire(spec) {
    const from = await sharedSandboxPool();
    const sandbox = await from.acquire(spec);
    handedOutBy.set(sandbox, from);
    return sandbox;
  },
  async release(sandbox) {
    // Its pool, or (closed meanwhile) none: then the sandbox is closed, and no new pool starts.
    const from = handedOutBy.get(sandbox);
    handedOutBy.delete(sandbox);
    if (from) await from.release(sandbox);
    else await sandbox.close();
  },
};

/** Close the shared pool and its backend (the end of a run). */
export async function closeSharedSandboxes(): Promise<void> {
  const current = pool;
  pool = undefined;
  if (!current) return;
  const p = await current.catch(() => undefined);
  await p?.close();
  await p?.backend.close();
}
