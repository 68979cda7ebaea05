/**
 * Which agent `rllm eval` and `rllm train` run, decided once for both: `--agent FILE[#export]`,
 * `--agent-cmd CMD` (eval only), `--harness NAME` — at most one — else the recipe's agent, else the
 * benchmark's default (its one chat call, or the built-in tool agent for Harbor tasks).
 */
import { toolAgent } from "../agents/tool-agent.js";
import { type BenchmarkEntry, defaultRollout } from "../benchmarks/index.js";
import { ConfigError } from "../config/index.js";
import { loadRollout, processRollout, type Rollout } from "../sdk/index.js";
import { harnessRollout } from "./harness.js";

export interface AgentChoice {
  agent?: string | undefined;
  agentCmd?: string | undefined;
  harness?: string | undefined;
}

/** The flags given, as one name (`--agent-cmd` only where the command has it); refuses two. */
export function checkAgentChoice(c: AgentChoice, flags: string[]): void {
  if ([c.agent, c.agentCmd, c.harness].filter(Boolean).length > 1) {
    const names =
      flags.length === 2
        ? flags.join(" and ")
        : `${flags.slice(0, -1).join(", ")} and ${flags.at(-1)}`;
    throw new ConfigError(`${names} exclude each other; pass one`);
  }
}

/** The recipe lookup's name of the chosen agent (undefined: the benchmark's own). */
export function agentKey(c: AgentChoice): string | undefined {
  return c.agent ?? c.agentCmd ?? (c.harness ? `harness:${c.harness}` : undefined);
}

/** How the run names its agent in results and the run's config. */
export function agentLabel(c: AgentChoice, rollout: Rollout): string {
  if (c.agent) return c.agent;
  if (c.agentCmd) return `cmd:${c.agentCmd}`;
  return c.harness ? `harness:${c.harness}` : `default:${rollout.name}`;
}

export async function chooseRollout(
  c: AgentChoice,
  entry: BenchmarkEntry,
  recipeAgent: (() => Rollout) | undefined,
  engineTimeoutSeconds: number,
): Promise<Rollout> {
  if (c.agent) return loadRollout(c.agent);
  if (c.agentCmd) return processRollout({ command: c.agentCmd, shell: true, name: "agent-cmd" });
  if (c.harness) return harnessRollout(c.harness, engineTimeoutSeconds);
  if (recipeAgent) return recipeAgent();
  return entry.defaultAgent === "tool-agent" ? toolAgent() : defaultRollout(entry);
}
