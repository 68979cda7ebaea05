/**
 * bench/tool-agent — the engine's throughput with multi-turn tool agents, and its capacity for
 * many long ones.
 *
 *   node --import tsx bench/tool-agent.ts [--episodes 120] [--ref-episodes 480] [--rounds 2]
 *     [--concurrency 8] [--turns 8] [--sessions 1000] [--latency-ms 2000]
 *
 * The model is scripted (bench/lib/tool-upstream.ts, a fake vLLM upstream in its own process,
 * pinned to core 1 where taskset works): every answer is a bash tool call (`echo turn k`), the
 * last also calls submit, so an episode is `--turns` LLM calls and `--turns` commands. Episodes run
 * through the engine (runRollouts) and the in-process gateway (SQLite traces in a temp file), the
 * built-in tool agent (src/agents/tool-agent.ts) driving them.
 *
 * 1. Throughput against a zero-latency upstream, in `--rounds` alternating rounds of:
 *    reference  the same agent, the same prompts and answers, the same `--turns` LLM calls per
 *               episode, but its commands answered by an in-memory stand-in (`echo` only, as
 *               bash would print it): no sandbox, no process
 *    sandboxed  the commands run in real bwrap sandboxes from the process's shared pool
 *               (poolSize = --concurrency; each episode takes one, release resets it)
 *    Episodes/s and LLM calls/s of each, and sandboxed ÷ reference within each round: what the
 *    sandbox costs an episode.
 * 2. `--sessions` episodes all at once against an upstream that takes `--latency-ms` per call
 *    (its latency option), the commands in the stand-in (a thousand bwrap sandboxes at once would
 *    be a thousand sandbox init processes; the pool bounds how many are alive): every episode must
 *    end by submit with no error; wall time and peak memory are reported.
 * Writes bench/results/tool-agent.json. About 1–2 minutes on 2 cores.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { toolAgent } from "../src/agents/tool-agent.js";
import { InProcessGateway, runRollouts } from "../src/engine/index.js";
import { SandboxConfigSchema } from "../src/sandbox/registry.js";
import {
  closeSharedSandboxes,
  configureSandboxes,
  type SandboxSource,
  sharedSandboxes,
} from "../src/sandbox/shared.js";
import type { ExecResult, Sandbox } from "../src/sandbox/types.js";
import type { Episode, Task } from "../src/types/index.js";
import { canPin, freePort, memoryPeaks, spawnServer, systemCpuMs } from "./lib/procs.js";
import { markdownTable } from "./lib/stats.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

function arg(name: string, dflt: number): number {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return dflt;
  const v = Number(process.argv[i + 1]);
  if (!Number.isFinite(v) || v <= 0) throw new Error(`--${name} takes a positive number`);
  return v;
}

const EPISODES = arg("episodes", 120);
const REF_EPISODES = arg("ref-episodes", 480);
const ROUNDS = arg("rounds", 2);
const CONCURRENCY = arg("concurrency", 8);
const TURNS = arg("turns", 8);
const SESSIONS = arg("sessions", 1000);
const LATENCY = arg("latency-ms", 2000);

async function upstream(latencyMs: number) {
  const port = await freePort();
  return spawnServer({
    name: `tool-upstream(${latencyMs}ms)`,
    nodeArgs: [
      "--import",
      "tsx",
      join(ROOT, "bench/lib/tool-upstream.ts"),
      "--port",
      String(port),
      "--turns",
      String(TURNS),
      "--latency-ms",
      String(latencyMs),
    ],
    url: `http://127.0.0.1:${port}`,
    ...(canPin() ? { cpus: "1" } : {}),
  });
}

/** A sandbox that answers `echo …` as bash would, in memory: the reference's commands. */
function standInSandbox(id: number): Sandbox {
  const result = (stdout: string, exitCode: number, stderr = ""): ExecResult => ({
    exitCode,
    signal: null,
    stdout,
    stderr,
    stdoutTruncated: false,
    stderrTruncated: false,
    timedOut: false,
    limit: null,
    wallSeconds: 0,
    cpuSeconds: 0,
  });
  return {
    id: `stand-in-${id}`,
    workdir: "/work",
    async exec(argv) {
      const m = /^echo (.*)$/.exec(argv.at(-1) ?? "");
      return m ? result(`${m[1]}\n`, 0) : result("", 127, "the stand-in runs only echo\n");
    },
    async upload() {},
    async download(path) {
      throw new Error(`the stand-in has no file ${path}`);
    },
    async snapshot() {
      return { files: [] };
    },
    async close() {},
  };
}

let standIns = 0;
const standIn: SandboxSource = {
  acquire: async () => standInSandbox(standIns++),
  release: async () => {},
};

const tasks = (n: number, tag: string): Task[] =>
  Array.from({ length: n }, (_, i) => ({
    id: `${tag}${i}`,
    index: i,
    data: { instruction: `Task ${i}: run the commands.` },
  }));

/** Episodes that did not end by submit after exactly TURNS calls, with the first one's reason. */
function failures(episodes: Episode[]) {
  const bad = episodes.filter(
    (e) =>
      e.infraFailed ||
      e.error ||
      e.info?.answer !== "done" ||
      e.trajectories[0]?.steps.length !== TURNS,
  );
  const first = bad[0];
  return {
    count: bad.length,
    first: first
      ? String(first.error ?? first.info?.error ?? `ended as ${first.terminationReason}`)
      : undefined,
  };
}

interface Cell {
  way: "reference" | "sandboxed";
  round: number;
  episodes: number;
  wallS: number;
  episodesPerS: number;
  callsPerS: number;
  commandMsPerEpisode: number;
  engineCpuMsPerEpisode: number;
  /** The machine's CPU in use during the cell, % of all cores (this run's and anything else's). */
  machineBusyPct: number;
  errors: number;
  firstError?: string;
}

async function cell(
  gw: InProcessGateway,
  way: Cell["way"],
  round: number,
  n: number,
): Promise<Cell> {
  const agent = toolAgent({
    name: way,
    maxTurns: TURNS,
    sandboxes: way === "sandboxed" ? sharedSandboxes : standIn,
  });
  const cpu0 = process.cpuUsage();
  const busy0 = systemCpuMs().busy;
  const t0 = performance.now();
  const r = await runRollouts(tasks(n, `${way}-${round}-`), {
    gateway: gw,
    rollout: agent,
    model: "m",
    concurrency: CONCURRENCY,
    runId: `${way}-${round}`,
    infraRetries: 0,
  });
  const wallS = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const busyMs = systemCpuMs().busy - busy0;
  const calls = r.episodes.reduce((a, e) => a + (e.trajectories[0]?.steps.length ?? 0), 0);
  const commandS = r.episodes.reduce(
    (a, e) => a + Number((e.info?.toolAgent as { sandboxSeconds?: number })?.sandboxSeconds ?? 0),
    0,
  );
  const f = failures(r.episodes);
  return {
    way,
    round,
    episodes: n,
    wallS,
    episodesPerS: n / wallS,
    callsPerS: calls / wallS,
    commandMsPerEpisode: (commandS * 1000) / n,
    engineCpuMsPerEpisode: (cpu.user + cpu.system) / 1000 / n,
    machineBusyPct: (100 * busyMs) / (wallS * 1000 * cpus().length),
    errors: f.count,
    ...(f.first ? { firstError: f.first } : {}),
  };
}

async function throughput(): Promise<Cell[]> {
  const up = await upstream(0);
  const dir = mkdtempSync(join(tmpdir(), "rllm-bench-tool-agent-"));
  await configureSandboxes(SandboxConfigSchema.parse({ backend: "bwrap", poolSize: CONCURRENCY }));
  const gw = await InProcessGateway.start(
    { upstreams: [{ url: up.url, kind: "vllm" }], healthCheckIntervalMs: 0 },
    { storePath: join(dir, "traces.db") },
  );
  try {
    // warm up both paths (JIT, connections, the pool's sandboxes)
    await cell(gw, "reference", 0, 4 * CONCURRENCY);
    await cell(gw, "sandboxed", 0, 2 * CONCURRENCY);
    const cells: Cell[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      cells.push(await cell(gw, "reference", round, REF_EPISODES));
      cells.push(await cell(gw, "sandboxed", round, EPISODES));
    }
    return cells;
  } finally {
    await gw.close();
    await closeSharedSandboxes();
    await up.stop();
  }
}

async function capacity() {
  const up = await upstream(LATENCY);
  const gw = await InProcessGateway.start({
    upstreams: [{ url: up.url, kind: "vllm" }],
    healthCheckIntervalMs: 0,
    upstreamTimeoutMs: 120_000,
  });
  const memory = memoryPeaks();
  try {
    const before = process.memoryUsage().rss;
    const r = await runRollouts(tasks(SESSIONS, "cap-"), {
      gateway: gw,
      rollout: toolAgent({ name: "capacity", maxTurns: TURNS, sandboxes: standIn }),
      model: "m",
      concurrency: SESSIONS,
      runId: "capacity",
      timeoutMs: 300_000,
      infraRetries: 0,
    });
    const f = failures(r.episodes);
    return {
      sessions: SESSIONS,
      turns: TURNS,
      latencyMs: LATENCY,
      completed: r.metrics.completed,
      errors: f.count,
      firstError: f.first,
      wallS: r.metrics.wallMs / 1000,
      /** The least wall time: every session's turns one after the other at the upstream's latency. */
      floorS: (TURNS * LATENCY) / 1000,
      rssBefore: before,
      ...memory.stop(),
    };
  } finally {
    memory.stop();
    await gw.close();
    await up.stop();
  }
}

const mb = (b: number) => `${(b / 2 ** 20).toFixed(0)} MB`;
const f1 = (x: number) => x.toFixed(1);
console.log(
  `bench/tool-agent: ${cpus().length} cores, load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(
      " ",
    )}; ${TURNS} turns per episode; throughput at concurrency ${CONCURRENCY} (${REF_EPISODES} reference / ${EPISODES} sandboxed episodes a round, ${ROUNDS} rounds); ${SESSIONS} concurrent sessions at ${LATENCY} ms a call`,
);
const t0 = performance.now();
const cells = await throughput();
console.log(
  `\n### Multi-turn tool agents, zero-latency upstream (${TURNS} LLM calls + ${TURNS} commands an episode)\n`,
);
const refOf = (round: number) => cells.find((c) => c.way === "reference" && c.round === round)!;
console.log(
  markdownTable(
    [
      "round",
      "way",
      "episodes/s",
      "LLM calls/s",
      "÷ reference",
      "command ms/episode",
      "engine CPU ms/episode",
      "machine busy",
      "errors",
    ],
    cells.map((c) => [
      String(c.round),
      c.way,
      f1(c.episodesPerS),
      c.callsPerS.toFixed(0),
      (c.episodesPerS / refOf(c.round).episodesPerS).toFixed(2),
      f1(c.commandMsPerEpisode),
      f1(c.engineCpuMsPerEpisode),
      `${c.machineBusyPct.toFixed(0)}%`,
      String(c.errors),
    ]),
  ),
);
for (const c of cells) if (c.firstError) console.log(`${c.way} ${c.round}: ${c.firstError}`);

const cap = await capacity();
console.log(`\n### ${SESSIONS} concurrent episodes, upstream latency ${LATENCY} ms a call\n`);
console.log(
  markdownTable(
    ["sessions", "completed", "errors", "wall", "floor", "RSS before", "peak RSS", "peak heap"],
    [
      [
        String(cap.sessions),
        String(cap.completed),
        String(cap.errors),
        `${f1(cap.wallS)} s`,
        `${f1(cap.floorS)} s`,
        mb(cap.rssBefore),
        mb(cap.peakRss),
        mb(cap.peakHeap),
      ],
    ],
  ),
);
if (cap.firstError) console.log(`first error: ${cap.firstError}`);
const ok = cap.completed === SESSIONS && cap.errors === 0 && cells.every((c) => c.errors === 0);
console.log(
  `${ok ? "PASS" : "FAIL"}: every episode ended by submit after ${TURNS} calls, 0 errors`,
);
console.log(`total ${f1((performance.now() - t0) / 1000)} s`);
mkdirSync(join(ROOT, "bench/results"), { recursive: true });
writeFileSync(
  join(ROOT, "bench/results/tool-agent.json"),
  JSON.stringify(
    { cores: cpus().length, loadavg: loadavg(), concurrency: CONCURRENCY, cells, capacity: cap },
    null,
    2,
  ),
);
if (!ok) process.exitCode = 1;
