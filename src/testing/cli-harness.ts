/** What the CLI harness tests share: the Harbor fixture they run on and a sandbox source that looks inside. */
import { fileURLToPath } from "node:url";
import { type SandboxSource, sharedSandboxes } from "../sandbox/shared.js";
import type { Sandbox } from "../sandbox/types.js";

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
