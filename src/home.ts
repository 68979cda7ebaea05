import { homedir } from "node:os";
import { join } from "node:path";

/** Where rllm keeps its settings, caches and default stores: $RLLM_HOME, else ~/.rllm. */
export function rllmHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.RLLM_HOME || join(homedir(), ".rllm");
}
