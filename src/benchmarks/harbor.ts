/**
 * Tasks in the Harbor layout (harborframework.com/docs/tasks), as `harbor:DIR` in `rllm eval` and
 * `rllm train`. DIR is one task directory or a directory of them (each subdirectory with a
 * task.toml, or a symlink to one; hidden ones are skipped; id = the directory's name):
 *
 *   <task>/instruction.md        the agent's instruction (required, not empty)
 *   <task>/task.toml             config (required; see TaskTomlSchema)
 *   <task>/environment/Dockerfile  the environment, read as below (required)
 *   <task>/tests/test.sh         the verifier, run after the agent (required; the rest of tests/
 *                                goes to /tests with it)
 *   <task>/solution/solve.sh     the oracle (optional; not read here)
 * None of task.toml, instruction.md, tests/, environment/ and its Dockerfile may be a symlink out
 * of the task dir.
 *
 * Each becomes a Task whose `data` is {instruction, harbor} (types/harbor.ts), which
 * agents/environment.ts turns into a sandbox and a verifier. The tasks run in the bwrap sandbox
 * with the host's tools; the Dockerfile is read, not built:
 *   FROM        one stage, of an image the host stands in for (ubuntu, debian, python,
 *               buildpack-deps: the tools of a Debian-like host); anything else is an error
 *   WORKDIR     absolute, or relative to the previous one; the last is where the agent works (cwd)
 *   COPY, ADD   local files and directories of environment/ (no wildcards, no --from, no symlink
 *               leading out of environment/ — Docker never reads outside its context; ADD of a URL
 *               or an archive is refused), into the last WORKDIR; --chmod is applied, --chown and
 *               --link are ignored (the sandbox has one user); a file keeps its mode on the host
 *   ENV         KEY=VALUE pairs (quoted or not) or `ENV KEY VALUE`, without $ substitution
 *   ignored     LABEL, EXPOSE, CMD, ENTRYPOINT, USER, MAINTAINER, STOPSIGNAL, HEALTHCHECK, SHELL,
 *               VOLUME, ONBUILD (nothing of the environment's files or env depends on them)
 *   refused     RUN (the task needs a container runtime to build its environment), ARG, anything
 *               else: an error naming the file, the line and what to do
 * task.toml: sections [verifier], [agent], [environment], [solution] are strict over Harbor's keys
 * (a misspelt key is an error naming it); the top level is open (benchmarks add their own keys).
 * Used: [verifier] timeout_sec (default 600) and env; [agent] timeout_sec; [environment] memory_mb
 * or memory ("2G") → the sandbox's memoryMb, storage_mb or storage → diskMb, env (literal values),
 * gpus (> 0 is refused: sandboxes have none). Read and not enforced: cpus (no backend limits cores;
 * CPU time is sandbox.limits.cpuSeconds), docker_image (a prebuilt image: the Dockerfile is read
 * instead, and a task with no Dockerfile is refused), network keys (the sandbox's network is
 * sandbox.network).
 *
 * The `harbor` evaluator: the reward is the episode's `info.verifier.reward` (the verifier the
 * agent ran: toolAgent and the harnesses do), isCorrect when it is > 0. An episode without one is
 * an evaluator error naming the agent, or the verifier's own error — never reward 0.
 */
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { basename, join, resolve, sep } from "node:path";
import { parse as parseToml, TomlError } from "smol-toml";
import { z } from "zod";
import { MAX_EXEC_TIMEOUT_S } from "../sandbox/types.js";
import { type Evaluator, evaluator } from "../sdk/index.js";
import type { Episode, HarborFile, HarborTask, Task } from "../types/index.js";
import type { BenchmarkEntry } from "./entry.js";
import { HarborTaskError, readDockerfile, walk } from "./harbor-dockerfile.js";

export { HarborTaskError };

const Env = z.record(z.string(), z.string());
/** Seconds of a timeout: a sandbox exec holds at most MAX_EXEC_TIMEOUT_S. */
const Seconds = z
  .number()
  .positive()
  .max(MAX_EXEC_TIMEOUT_S, `at most ${MAX_EXEC_TIMEOUT_S} s (24.8 days)`);
/** A Harbor key rllm does not read (see the header): accepted, so only a misspelt key is refused. */
const Known = z.unknown().optional();
/** "2G", "512M", "1.5GB", "1024Mi": MiB (Harbor's deprecated memory/storage strings). */
const Size = z
  .string()
  .regex(/^\s*\d+(\.\d+)?\s*([kmgt]i?b?)?\s*$/i, {
    message: 'a size such as "2G" or "512M"',
    abort: true,
  })
  .refine((text) => Number.parseFloat(text) > 0, 'a size above 0, such as "2G"');

/** task.toml, as far as rllm reads it (see the header). */
export const TaskTomlSchema = z.looseObject({
  verifier: z
    .strictObject({
      timeout_sec: Seconds.optional(),
      env: Env.optional(),
      user: Known,
      network_mode: Known,
      allowed_hosts: Known,
    })
    .optional(),
  agent: z
    .strictObject({
      timeout_sec: Seconds.optional(),
      user: Known,
      network_mode: Known,
      allowed_hosts: Known,
    })
    .optional(),
  environment: z
    .strictObject({
      memory_mb: z.number().positive().optional(),
      memory: Size.optional(),
      storage_mb: z.number().positive().optional(),
      storage: Size.optional(),
      env: Env.optional(),
      gpus: z.number().int().min(0).optional(),
      cpus: z.number().positive().optional(),
      docker_image: z.string().min(1).optional(),
      build_timeout_sec: Known,
      gpu_types: Known,
      allow_internet: Known,
      network_mode: Known,
      allowed_hosts: Known,
      mcp_servers: Known,
      skills_dir: Known,
      healthcheck: Known,
      os: Known,
    })
    .optional(),
  solution: z.strictObject({ env: Env.optional() }).optional(),
});
type TaskToml = z.infer<typeof TaskTomlSchema>;

/** The tasks of `dir`: one task directory, or a directory of them, sorted by name. */
export function loadHarborTasks(dir: string): Task[] {
  const root = resolve(dir);
  if (!existsSync(root) || !statSync(root).isDirectory())
    throw new HarborTaskError(
      `harbor:${dir}: ${root} is not a directory; give a Harbor task directory or a directory of them`,
    );
  const source = `harbor:${dir}`;
  if (existsSync(join(root, "task.toml"))) return [readHarborTask(root, source, 0)];
  const subdirs = readdirSync(root, { withFileTypes: true })
    .filter((d) => !d.name.startsWith(".") && isDirectory(join(root, d.name)))
    .map((d) => d.name)
    .sort();
  if (subdirs.length === 0)
    throw new HarborTaskError(
      `harbor:${dir}: ${join(root, "task.toml")} is missing and ${root} has no task directories; a Harbor task has task.toml, instruction.md, environment/ and tests/test.sh`,
    );
  return subdirs.map((name, i) => {
    const taskDir = join(root, name);
    if (!existsSync(join(taskDir, "task.toml")))
      throw new HarborTaskError(
        `harbor:${dir}: ${join(taskDir, "task.toml")} is missing; every subdirectory of ${root} must be a Harbor task (or start with "." to be skipped)`,
      );
    return readHarborTask(taskDir, source, i);
  });
}

/** A directory, or a symlink to one (a dir of tasks linked from elsewhere). */
function isDirectory(path: string): boolean {
  return existsSync(path) && statSync(path).isDirectory();
}

/** One task directory as a Task (see the header for what is read). */
export function readHarborTask(dir: string, dataSource: string, index: number): Task {
  for (const name of [
    "task.toml",
    "instruction.md",
    "tests",
    "environment",
    "environment/Dockerfile",
  ])
    insideTask(dir, name);
  const config = readTaskToml(join(dir, "task.toml"));
  const instruction = readRequired(join(dir, "instruction.md"), "the agent's instruction");
  if (instruction.trim() === "")
    throw new HarborTaskError(
      `${join(dir, "instruction.md")} is empty: the agent would get no instruction; write the task in it`,
    );
  readRequired(join(dir, "tests", "test.sh"), "the verifier (it writes /logs/verifier/reward.txt)");
  const env = config.environment ?? {};
  if (env.gpus !== undefined && env.gpus > 0)
    throw new HarborTaskError(
      `${join(dir, "task.toml")}: [environment].gpus = ${env.gpus}, but rllm's sandboxes have no GPU; this task cannot run here`,
    );
  const dockerfile = join(dir, "environment", "Dockerfile");
  if (!existsSync(dockerfile)) throw new HarborTaskError(noDockerfile(dir, env.docker_image));
  const image = readDockerfile(dockerfile, join(dir, "environment"));
  const harbor: HarborTask = {
    dir,
    workdir: image.workdir,
    files: image.files,
    env: { ...image.env, ...literalEnv(env.env, dir, "[environment].env") },
    tests: filesUnder(join(dir, "tests")),
    verifier: {
      timeoutSec: config.verifier?.timeout_sec ?? 600,
      env: literalEnv(config.verifier?.env, dir, "[verifier].env"),
    },
    ...(config.agent?.timeout_sec !== undefined
      ? { agentTimeoutSec: config.agent.timeout_sec }
      : {}),
    limits: {
      ...sizeMb(env.memory_mb, env.memory, "memoryMb"),
      ...sizeMb(env.storage_mb, env.storage, "diskMb"),
    },
  };
  return { id: basename(dir), dataSource, index, data: { instruction, harbor } };
}

/** A task's own file or dir, if there: a symlink may not lead out of the task dir (to the host's files). */
function insideTask(dir: string, name: string): void {
  const path = join(dir, name);
  if (!existsSync(path)) return; // a missing one is named where it is required
  const real = realpathSync(path);
  if (!real.startsWith(realpathSync(dir) + sep))
    throw new HarborTaskError(`${path} leads out of the task dir (to ${real}); copy it in`);
}

/** Why a task without environment/Dockerfile cannot run here, and what to do. */
function noDockerfile(dir: string, image: string | undefined): string {
  const dockerfile = join(dir, "environment", "Dockerfile");
  const compose = ["docker-compose.yaml", "docker-compose.yml"].find((f) =>
    existsSync(join(dir, "environment", f)),
  );
  if (compose)
    return `${dockerfile} is missing and the environment is environment/${compose}: a docker-compose environment needs a container runtime, and rllm runs Harbor tasks in the bwrap sandbox from a Dockerfile`;
  if (image)
    return `${dockerfile} is missing and the task names only its prebuilt image ${image} ([environment].docker_image): it needs a container runtime, and rllm runs Harbor tasks in the bwrap sandbox from their Dockerfile; add environment/Dockerfile`;
  return `${dockerfile} is missing: a Harbor task's environment/ needs a Dockerfile (FROM, WORKDIR, COPY, ENV)`;
}

function readRequired(path: string, what: string): string {
  if (!existsSync(path) || !statSync(path).isFile())
    throw new HarborTaskError(`${path} is missing: a Harbor task needs it (${what})`);
  return readFileSync(path, "utf8");
}

function readTaskToml(path: string): TaskToml {
  let raw: unknown;
  try {
    raw = parseToml(readFileSync(path, "utf8"));
  } catch (err) {
    const where = err instanceof TomlError ? ` at line ${err.line}, column ${err.column}` : "";
    throw new HarborTaskError(
      `${path} is not valid TOML${where}: ${(err as Error).message.split("\n")[0]}`,
    );
  }
  const parsed = TaskTomlSchema.safeParse(raw);
  if (!parsed.success) {
    const why = parsed.error.issues
      .map((i) =>
        i.code === "unrecognized_keys"
          ? `unknown key ${i.keys.map((k) => [...i.path, k].join(".")).join(", ")}`
          : `${i.path.join(".")}: ${i.message}`,
      )
      .join("; ");
    throw new HarborTaskError(`${path}: ${why}`);
  }
  return parsed.data;
}

function literalEnv(env: Record<string, string> | undefined, dir: string, key: string) {
  for (const [k, v] of Object.entries(env ?? {}))
    if (v.includes("${"))
      throw new HarborTaskError(
        `${join(dir, "task.toml")}: ${key}.${k} = ${JSON.stringify(v)}: host variables (\${VAR}) are not passed into rllm's sandboxes; give the value itself`,
      );
  return env ?? {};
}

const UNIT_MB: Record<string, number> = {
  "": 1 / 1024 ** 2,
  k: 1 / 1024,
  m: 1,
  g: 1024,
  t: 1024 ** 2,
};

/** [environment] memory_mb/memory (or storage_mb/storage) as the sandbox limit `key`, if set. */
function sizeMb(mb: number | undefined, text: string | undefined, key: string) {
  if (mb !== undefined) return { [key]: mb };
  if (text === undefined) return {};
  const m = /^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)/i.exec(text)!;
  return { [key]: Number(m[1]) * UNIT_MB[m[2]!.toLowerCase()]! };
}

/** Every regular file under `dir` (relative paths, sorted), with its bytes and mode. */
function filesUnder(dir: string): HarborFile[] {
  return walk(dir).map(({ rel, full }) => ({
    path: rel,
    base64: readFileSync(full).toString("base64"),
    mode: statSync(full).mode & 0o7777,
  }));
}

/**
 * `harbor:DIR` as a catalog entry: its tasks as a generator of one split ("test"), the tool agent
 * as its default agent, the verifier as its grader.
 */
export function harborBenchmark(dir: string): BenchmarkEntry {
  const tasks = loadHarborTasks(dir);
  return {
    name: `harbor:${dir}`,
    description: `Harbor tasks in ${dir}`,
    source: { splits: ["test"], defaultSplit: "test" },
    toTask() {
      throw new HarborTaskError(
        `harbor:${dir}: Harbor tasks are read from their directories, not from dataset rows; drop --data-dir`,
      );
    },
    grader: "verifier",
    systemPrompt: "",
    userPrompt: (task) => String(task.data.instruction),
    defaultAgent: "tool-agent",
    generator: {
      description: `the ${tasks.length} Harbor tasks in ${dir}`,
      counts: { test: tasks.length },
      generate: (_split, count) => tasks.slice(0, count),
    },
  };
}

/** The `harbor` evaluator (see the header). */
export function verifierEvaluator(): Evaluator<Episode> {
  return evaluator<Episode>((task, episode) => {
    const info = episode.info ?? {};
    const result = info.verifier as
      | { reward?: unknown; rewards?: Record<string, number> }
      | undefined;
    if (typeof result?.reward === "number" && Number.isFinite(result.reward))
      return {
        reward: result.reward,
        isCorrect: result.reward > 0,
        ...(result.rewards ? { signals: result.rewards } : {}),
      };
    if (typeof info.verifierError === "string")
      throw new Error(`task ${task.id}: the verifier gave no reward: ${info.verifierError}`);
    const agent = episode.trajectories[0]?.name ?? "the agent";
    throw new Error(
      `task ${task.id}: ${agent} returned no verifier result (episode info.verifier); a Harbor task needs an agent that runs its environment's verify() — toolAgent() or a CLI harness — or an --evaluator of your own`,
    );
  });
}
