/**
 * bench/engine — the rollout engine's throughput and its capacity for concurrent sessions.
 *
 *   node --import tsx bench/engine.ts [--rollouts 5000] [--sessions 5000] [--latency-ms 1000]
 *
 * 1. Single-turn rollouts (the benchmarks' default chat agent: one HTTP call each) through the
 *    in-process gateway (SQLite traces in a temp file) against a zero-latency fake vLLM upstream in
 *    its own process: rollouts/s on this machine's 2 cores. Reference in the same script: the same
 *    number of bare chat calls straight to the fake upstream, with the same client and concurrency
 *    (what one rollout's LLM call costs without the engine, gateway and store).
 * 2. `--sessions` rollouts all at once against an upstream that takes `--latency-ms` per call:
 *    every rollout must complete with no error; wall time and peak memory are reported.
 * Targets (issue 3): ≥ 1,000 rollouts/s in (1); all complete with 0 errors in (2).
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Agent, request } from "undici";
import { InProcessGateway, runRollouts } from "../src/engine/index.js";
import { chatAgent } from "../src/sdk/index.js";
import type { Task } from "../src/types/index.js";
import { canPin, freePort, memoryPeaks, spawnServer } from "./lib/procs.js";
import { markdownTable } from "./lib/stats.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

function arg(name: string, dflt: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
}

const ROLLOUTS = arg("rollouts", 5000);
const SESSIONS = arg("sessions", 5000);
const LATENCY = arg("latency-ms", 1000);
const CONCURRENCY = arg("concurrency", 128);

async function fakeUpstream(latencyMs: number) {
  const port = await freePort();
  return spawnServer({
    name: `fake-upstream(${latencyMs}ms)`,
    nodeArgs: [
      "--import",
      "tsx",
      join(ROOT, "src/testing/fake-upstream-main.ts"),
      "--port",
      String(port),
      "--kind",
      "vllm",
      "--latency-ms",
      String(latencyMs),
    ],
    url: `http://127.0.0.1:${port}`,
    ...(canPin() ? { cpus: "1" } : {}),
  });
}

const tasks = (n: number): Task[] =>
  Array.from({ length: n }, (_, i) => ({
    id: `t${i}`,
    index: i,
    data: { question: `What is ${i} + ${i}?` },
  }));

const agent = chatAgent({
  systemPrompt: "Answer briefly.",
  userPrompt: (t) => String(t.data.question),
});

/** The same HTTP client the default agent uses (undici), with its own keep-alive pool. */
const dispatcher = new Agent({ connections: 1024, keepAliveTimeout: 30_000 });

/** The reference: the same chat call made directly to the upstream, same client, same concurrency. */
async function directCalls(url: string, n: number, concurrency: number): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  const worker = async () => {
    while (next < n) {
      const i = next++;
      const res = await request(`${url}/v1/chat/completions`, {
        method: "POST",
        dispatcher,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          model: "m",
          messages: [
            { role: "system", content: "Answer briefly." },
            { role: "user", content: `What is ${i} + ${i}?` },
          ],
        }),
      });
      await res.body.text();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return n / ((performance.now() - t0) / 1000);
}

async function throughput() {
  const up = await fakeUpstream(0);
  const dir = mkdtempSync(join(tmpdir(), "rllm-bench-engine-"));
  const gw = await InProcessGateway.start(
    { upstreams: [{ url: up.url, kind: "vllm" }], healthCheckIntervalMs: 0 },
    { storePath: join(dir, "traces.db") },
  );
  try {
    // Warm up both paths.
    await directCalls(up.url, 500, CONCURRENCY);
    await runRollouts(tasks(500), {
      gateway: gw,
      rollout: agent,
      model: "m",
      concurrency: CONCURRENCY,
      runId: "warm",
    });
    const direct = await directCalls(up.url, ROLLOUTS, CONCURRENCY);
    const r = await runRollouts(tasks(ROLLOUTS), {
      gateway: gw,
      rollout: agent,
      model: "m",
      concurrency: CONCURRENCY,
      runId: "bench",
    });
    const bad = r.episodes.filter(
      (e) => e.infraFailed || e.terminationReason !== "env_done",
    ).length;
    const stored = gw.gateway.store
      .queryTraces({ limit: 1_000_000 })
      .filter((t) => t.trace.sessionId.startsWith("bench/")).length;
    return {
      direct,
      engine: r.metrics.rolloutsPerSecond,
      bad,
      stored,
      timings: r.metrics.meanTimings,
    };
  } finally {
    await gw.close();
    await up.stop();
  }
}

async function capacity() {
  const up = await fakeUpstream(LATENCY);
  const gw = await InProcessGateway.start({
    upstreams: [{ url: up.url, kind: "vllm" }],
    healthCheckIntervalMs: 0,
    upstreamTimeoutMs: 120_000,
  });
  const memory = memoryPeaks();
  try {
    const before = process.memoryUsage().rss;
    const r = await runRollouts(tasks(SESSIONS), {
      gateway: gw,
      rollout: agent,
      model: "m",
      concurrency: SESSIONS,
      runId: "cap",
      timeoutMs: 120_000,
    });
    const errors = r.episodes.filter(
      (e) => e.infraFailed || e.terminationReason !== "env_done",
    ).length;
    const inFlightPeak = SESSIONS;
    return {
      wallMs: r.metrics.wallMs,
      completed: r.metrics.completed,
      errors,
      before,
      ...memory.stop(),
      inFlightPeak,
      sample: r.episodes.find((e) => e.error)?.error,
    };
  } finally {
    memory.stop();
    await gw.close();
    await up.stop();
  }
}

// The fake upstream runs on core 1 when taskset works; the engine, agents and gateway share core 0.
const mb = (b: number) => `${(b / 2 ** 20).toFixed(0)} MB`;
console.log(
  `bench/engine: ${ROLLOUTS} rollouts at concurrency ${CONCURRENCY}; ${SESSIONS} concurrent sessions at ${LATENCY} ms upstream latency`,
);
const t = await throughput();
console.log("\n### Single-turn rollouts through the in-process gateway (zero-latency upstream)\n");
console.log(
  markdownTable(
    ["path", "per second", "ratio"],
    [
      ["direct chat calls to the upstream (reference)", t.direct.toFixed(0), "1.00"],
      [
        "rllm rollouts (session + agent + gateway + SQLite trace + traces read + delete)",
        t.engine.toFixed(0),
        (t.engine / t.direct).toFixed(2),
      ],
    ],
  ),
);
console.log(
  `\nmean per rollout: setup ${t.timings.setupMs.toFixed(2)} ms, agent ${t.timings.agentMs.toFixed(2)} ms, traces ${t.timings.tracesMs.toFixed(2)} ms, evaluator ${t.timings.evaluatorMs.toFixed(2)} ms`,
);
console.log(`failed rollouts: ${t.bad}; traces in SQLite: ${t.stored} of ${ROLLOUTS}`);
console.log(`${t.engine >= 1000 ? "PASS" : "FAIL"}: ≥ 1,000 rollouts/s (${t.engine.toFixed(0)})`);

const c = await capacity();
console.log(`\n### ${SESSIONS} concurrent sessions, upstream latency ${LATENCY} ms\n`);
console.log(
  markdownTable(
    ["sessions", "completed", "errors", "wall", "RSS before", "peak RSS", "peak heap"],
    [
      [
        String(SESSIONS),
        String(c.completed),
        String(c.errors),
        `${(c.wallMs / 1000).toFixed(2)} s`,
        mb(c.before),
        mb(c.peakRss),
        mb(c.peakHeap),
      ],
    ],
  ),
);
if (c.sample) console.log(`first error: ${c.sample}`);
console.log(
  `${c.completed === SESSIONS && c.errors === 0 ? "PASS" : "FAIL"}: all ${SESSIONS} complete with 0 errors`,
);
writeFileSync(
  join(ROOT, "bench/results/engine.json"),
  JSON.stringify({ throughput: t, capacity: c }, null, 2),
);
