/**
 * Gateway overhead benchmark: the same request mix sent directly to the fake vLLM upstream and
 * through the gateway (traces written to a real SQLite file), at several concurrencies.
 *
 *   node --import tsx bench/gateway.ts [--duration 5] [--warmup 1] [--concurrency 1,64,256]
 *     [--targets direct,gateway] [--no-pin] [--profile] [--direct-tokens] [--durability full]
 *     [--seed 1] [--out bench/results/gateway.json] [--strict]   (--help lists every flag)
 *
 * The servers (fake upstream and gateway) run as child processes pinned with `taskset -c 1`; the
 * load generator re-executes itself under `taskset -c 0`. The fake upstream stands for a GPU server
 * on another machine: it replays the answer a request body got the first time (unless
 * --upstream-generate), so that it takes little of the core it shares with the gateway. Each cell: priming (one request per
 * connection), warm-up, measured window (see bench/lib/load.ts). Prints a markdown table (req/s,
 * p50, p99, added latency, throughput ratio, errors), the CPU each server used per request, whether
 * every gateway call left a trace in SQLite, and PASS/FAIL for each target; writes the same as
 * JSON. Environment: BENCH_DURATION, BENCH_WARMUP, BENCH_CONCURRENCY override the defaults.
 * bench/README.md explains the method and the diagnosis options.
 */
import { spawn, spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import Database from "better-sqlite3";
import { request } from "undici";
import { formatProfile, type ProfileSummary, summarizeProfile } from "./lib/cpuprofile.js";
import {
  buildMix,
  type CellResult,
  type MixRequest,
  runCell,
  type VirtualUser,
} from "./lib/load.js";
import {
  affinityOf,
  canBatch,
  canPin,
  cpuMsOf,
  cpuSplitOf,
  freePort,
  type ServerProc,
  spawnServer,
  systemCpuMs,
  tcpCounters,
} from "./lib/procs.js";
import { calibrate, fmtInt, fmtMs, markdownTable } from "./lib/stats.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const PINNED_ENV = "BENCH_LOADGEN_PINNED";
const GATEWAY_KINDS = ["cli", "file", "file-autocheckpoint", "memory", "null-proxy"];
/** CPU used by other processes (in cores) above which a cell is flagged as disturbed. */
const NOISY = 0.1;

const { values: flags } = parseArgs({
  options: {
    duration: { type: "string", default: process.env.BENCH_DURATION ?? "5" },
    warmup: { type: "string", default: process.env.BENCH_WARMUP ?? "1" },
    concurrency: { type: "string", default: process.env.BENCH_CONCURRENCY ?? "1,64,256" },
    targets: { type: "string", default: "direct,gateway" },
    "no-pin": { type: "boolean", default: false },
    "loadgen-cpus": { type: "string", default: "0" },
    "server-cpus": { type: "string", default: "1" },
    "upstream-cpus": { type: "string", default: "" },
    "upstream-generate": { type: "boolean", default: false },
    "upstream-sched": { type: "string", default: "batch" },
    profile: { type: "boolean", default: false },
    "direct-tokens": { type: "boolean", default: false },
    durability: { type: "string", default: "normal" },
    "gateway-build": { type: "string", default: "dist" },
    "quiet-wait": { type: "string", default: "30" },
    gateway: { type: "string", default: "cli" },
    "gateway-root": { type: "string" },
    seed: { type: "string", default: "1" },
    out: { type: "string", default: join(ROOT, "bench", "results", "gateway.json") },
    keep: { type: "boolean", default: false },
    strict: { type: "boolean", default: false },
    help: { type: "boolean", short: "h", default: false },
  },
  strict: true,
});

if (flags.help) {
  console.log(
    [
      "usage: node --import tsx bench/gateway.ts [options]",
      "  --duration S          measured seconds per cell (default 5; env BENCH_DURATION)",
      "  --warmup S            warm-up seconds per cell, not measured (default 1; env BENCH_WARMUP)",
      "  --concurrency LIST    virtual users per cell (default 1,64,256; env BENCH_CONCURRENCY)",
      "  --targets LIST        direct,gateway (default both)",
      "  --no-pin              do not pin processes to cores with taskset",
      "  --loadgen-cpus / --server-cpus   taskset CPU lists (default 0 / 1)",
      "  --upstream-cpus L     pin the fake upstream elsewhere than the gateway (diagnosis only,",
      "                        e.g. 0 to give the gateway a core of its own for --profile)",
      "  --upstream-sched P    batch (default: the fake upstream runs under SCHED_BATCH, so its",
      "                        wake-ups do not preempt the gateway on the shared core, as a GPU",
      "                        server on another machine would not) or normal",
      "  --upstream-generate   the fake upstream generates every answer (default: it replays the",
      "                        bytes a request body got the first time, so it costs little more than",
      "                        its HTTP; see --replay in src/testing/fake-upstream-main.ts)",
      "  --profile             run the gateway under --cpu-prof and summarise the profile",
      "  --direct-tokens       add logprobs + return_token_ids to direct requests (what the",
      "                        gateway asks the upstream for), to isolate the gateway's own cost",
      "  --durability MODE     gateway store durability: normal (default) or full",
      "  --gateway-build B     dist (default: compile with tsc into bench/results/dist and run",
      "                        plain JS, as an installed rllm does) or tsx (run src/ under tsx)",
      "  --quiet-wait S        before each cell, wait up to S s for other processes to go",
      "                        under 5% of a core (default 30; 0 = do not wait)",
      "  --gateway KIND        what serves the gateway side: cli (default: `rllm gateway --db",
      "                        FILE`); experiments: file (the library via bench/lib/gateway-main.ts,",
      "                        same store as cli), file-autocheckpoint (SQLite checkpoints inside commits),",
      "                        memory (not durable);",
      "                        null-proxy (bench/lib/null-proxy.ts: no validation, no trace, no",
      "                        SQLite — the floor of a node:http + undici proxy on this machine)",
      "  --gateway-root DIR    with --gateway cli: run DIR/src/cli/index.ts (e.g. a patched copy",
      "                        of this tree) instead of this tree's",
      "  --seed N              request-mix seed (default 1)",
      "  --out FILE            JSON results (default bench/results/gateway.json)",
      "  --keep                keep the temporary directory (SQLite file, logs)",
      "  --strict              exit 1 when a target fails",
    ].join("\n"),
  );
  process.exit(0);
}

const durationS = Number(flags.duration);
const warmupS = Number(flags.warmup);
const quietS = Number(flags["quiet-wait"]);
const concurrencies = flags.concurrency
  .split(",")
  .map((s) => Number(s.trim()))
  .filter((n) => n > 0);
const targets = new Set(flags.targets.split(",").map((s) => s.trim()));
if (
  !(durationS > 0) ||
  !(warmupS >= 0) ||
  concurrencies.length === 0 ||
  concurrencies.some((c) => !Number.isInteger(c)) ||
  [...targets].some((t) => t !== "direct" && t !== "gateway") ||
  (flags.durability !== "normal" && flags.durability !== "full") ||
  (flags["upstream-sched"] !== "batch" && flags["upstream-sched"] !== "normal") ||
  (flags["gateway-build"] !== "tsx" && flags["gateway-build"] !== "dist") ||
  !GATEWAY_KINDS.includes(flags.gateway)
) {
  console.error("bad arguments; see --help");
  process.exit(2);
}

/** Whether the fake upstream runs under SCHED_BATCH (--upstream-sched). */
const upstreamBatch = flags["upstream-sched"] === "batch" && canBatch();

// ---- pinning: the load generator re-executes itself on its own core ----

// In the re-executed child the affinity is already one core, so the decision is inherited.
const alreadyPinned = process.env[PINNED_ENV] === "1";
const pinWanted = !flags["no-pin"] && (alreadyPinned || availableParallelism() >= 2);
const pinnable = pinWanted && (alreadyPinned || canPin());
if (pinnable && !alreadyPinned) {
  const child = spawn(
    "taskset",
    ["-c", flags["loadgen-cpus"], process.execPath, ...process.execArgv, ...process.argv.slice(1)],
    { stdio: "inherit", env: { ...process.env, [PINNED_ENV]: "1" } },
  );
  for (const sig of ["SIGINT", "SIGTERM"] as const) process.on(sig, () => child.kill(sig));
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
} else {
  await main();
}

// ---- the benchmark ----

interface ServerCpu {
  /** Fraction of one core each server used over the measured window. */
  upstreamCores: number;
  gatewayCores: number;
  /** CPU microseconds per measured request. */
  upstreamUsPerReq: number;
  gatewayUsPerReq: number;
  /** The part of gatewayUsPerReq spent in the kernel (sockets, SQLite's file writes). */
  gatewaySysUsPerReq: number;
  /** CPU used by everything else on the machine (other processes), in cores; and VM steal. */
  otherCores: number;
  stealCores: number;
}

type Measured = CellResult & {
  /** bench/lib/stats.ts calibrate() on the load generator's core just before the cell (µs). */
  speedUs: number;
  /**
   * Machine-wide TCP listen-queue overflows and SYN retransmissions during the warm-up (when the
   * cell's connections are opened) and during the window: each one stalls a connect by ≥ 1 s.
   */
  tcp: {
    warmupListenOverflows: number;
    warmupSynRetrans: number;
    windowListenOverflows: number;
    windowSynRetrans: number;
  };
  cpu: ServerCpu;
  /** The measured window in µs of the monotonic clock (to cut a CPU profile to it). */
  window: [number, number];
};

interface Row {
  concurrency: number;
  direct?: Measured;
  gateway?: Measured;
}

interface TraceCheck {
  afterConcurrency: number;
  expectedOk: number;
  rowsTotal: number;
  rowsOk: number;
  equal: boolean;
}

interface Target {
  name: string;
  status: "PASS" | "FAIL" | "SKIP";
  detail: string;
}

async function main(): Promise<void> {
  calibrate(); // the probe's own warm-up, so the first cell's figure is comparable
  const serverCpus = pinnable ? flags["server-cpus"] : undefined;
  const upstreamCpus = serverCpus && (flags["upstream-cpus"] || serverCpus);
  if (flags["upstream-sched"] === "batch" && !upstreamBatch)
    console.warn("chrt --batch is not usable here: the fake upstream runs under the normal policy");
  if (pinWanted && !pinnable) console.warn("taskset is not usable here: running unpinned");
  const work = mkdtempSync(join(tmpdir(), "rllm-bench-gateway-"));
  const dbPath = join(work, "traces.db");
  const profDir = join(work, "profile");
  const env = childEnv(work);
  const servers: ServerProc[] = [];
  const stopAll = async () => {
    await Promise.all(servers.map((s) => s.stop()));
  };
  // Interrupted: stop the servers (they would outlive this process otherwise), then exit.
  for (const [sig, code] of [
    ["SIGINT", 130],
    ["SIGTERM", 143],
  ] as const) {
    process.once(sig, () => {
      void stopAll().then(() => {
        if (!flags.keep) rmSync(work, { recursive: true, force: true });
        process.exit(code);
      });
    });
  }

  let profile: ProfileSummary | undefined;
  try {
    const upPort = await freePort();
    const upstream = await spawnServer({
      name: "fake upstream",
      url: `http://127.0.0.1:${upPort}`,
      cpus: upstreamCpus,
      batch: upstreamBatch,
      env,
      nodeArgs: [
        "--import",
        "tsx",
        join(ROOT, "src/testing/fake-upstream-main.ts"),
        "--port",
        String(upPort),
        "--kind",
        "vllm",
        ...(flags["upstream-generate"] ? [] : ["--replay"]),
      ],
    });
    servers.push(upstream);
    const gwPort = await freePort();
    const gateway = await spawnServer({
      name: "gateway",
      url: `http://127.0.0.1:${gwPort}`,
      cpus: serverCpus,
      env,
      nodeArgs: [
        ...(flags.profile
          ? ["--cpu-prof", "--cpu-prof-dir", profDir, "--cpu-prof-interval", "1000"]
          : []),
        ...gatewayEntry(),
        "--port",
        String(gwPort),
        "--upstream",
        upstream.url,
        "--db",
        dbPath,
        "--durability",
        flags.durability,
      ],
    });
    servers.push(gateway);

    const seed = Number(flags.seed);
    const mix = buildMix(seed);
    const directMix = flags["direct-tokens"]
      ? buildMix(seed, { logprobs: true, return_token_ids: true })
      : mix;
    printHeader(upstream, gateway, dbPath, serverCpus);

    const rows: Row[] = [];
    const checks: TraceCheck[] = [];
    let gatewayOk = 0;
    let gatewayMeasured = 0;
    const gatewayWindows: [number, number][] = [];
    for (const c of concurrencies) {
      const row: Row = { concurrency: c };
      rows.push(row);
      if (targets.has("direct")) {
        const users: VirtualUser[] = Array.from({ length: c }, () => ({
          origin: upstream.url,
          prefix: "",
          headers: {},
        }));
        await waitForQuiet(quietS, servers);
        row.direct = await measure(c, directMix, users, upstream, gateway);
        progress("direct ", row.direct);
        await pause(300);
      }
      if (targets.has("gateway")) {
        const users = await createSessions(gateway.url, c);
        await waitForQuiet(quietS, servers);
        row.gateway = await measure(c, mix, users, upstream, gateway);
        gatewayOk += row.gateway.ok;
        gatewayMeasured += row.gateway.measured;
        gatewayWindows.push(row.gateway.window);
        progress("gateway", row.gateway);
        if (flags.gateway === "memory" || flags.gateway === "null-proxy") {
          console.log(
            `          traces not checked: --gateway ${flags.gateway} keeps no SQLite file`,
          );
          await pause(300);
          continue;
        }
        const check = countTraces(dbPath, c, gatewayOk);
        checks.push(check);
        console.log(
          `          traces in SQLite: ${fmtInt(check.rowsOk)} ok rows (${fmtInt(check.rowsTotal)} in all)` +
            ` for ${fmtInt(check.expectedOk)} successful gateway requests — ${check.equal ? "equal" : "NOT EQUAL"}`,
        );
        await pause(300);
      }
    }
    await stopAll();
    const stats = gateway
      .log()
      .split("\n")
      .filter((l) => l.startsWith("STATS "));
    if (stats.length > 0) {
      console.log("\nGateway-side timings (bench/lib/gateway-main.ts), all cells:");
      for (const l of stats) console.log(`  ${l.slice(6)}`);
    }
    if (flags.profile) {
      const files = readdirSync(profDir).filter((f) => f.endsWith(".cpuprofile"));
      if (files.length === 0) console.warn("no .cpuprofile was written by the gateway");
      else profile = summarizeProfile(join(profDir, files[0]!), 30, gatewayWindows);
    }
    report(rows, checks, profile, gatewayMeasured, { dbPath, serverCpus, upstreamCpus, seed });
    if (flags.profile && profile) {
      const keepAt = join(dirname(flags.out), "gateway.cpuprofile");
      mkdirSync(dirname(keepAt), { recursive: true });
      copyFileSync(profile.file, keepAt);
      console.log(`\nprofile copied to ${relative(process.cwd(), keepAt)}`);
    }
  } catch (err) {
    console.error(err instanceof Error ? err.message : String(err));
    for (const s of servers) console.error(`--- ${s.name} log ---\n${s.log()}`);
    await stopAll();
    process.exitCode = 1;
  } finally {
    if (!flags.keep) rmSync(work, { recursive: true, force: true });
    else console.log(`kept ${work}`);
  }
}

/** Which code was measured: the commit, and the files under src/ that differ from it. */
function treeState(): { commit: string | null; changedSrcFiles: string[] } {
  const git = (...a: string[]) => spawnSync("git", a, { cwd: ROOT, encoding: "utf8" });
  const head = git("rev-parse", "HEAD");
  const status = git("status", "--porcelain", "--", "src");
  return {
    commit: head.status === 0 ? head.stdout.trim() : null,
    changedSrcFiles:
      status.status === 0
        ? status.stdout
            .split("\n")
            .filter(Boolean)
            .map((l) => l.slice(3))
        : [],
  };
}

function describeGateway(): string {
  if (flags.gateway === "null-proxy") return "null proxy (bench/lib/null-proxy.ts)";
  if (flags.gateway !== "cli") return `bench/lib/gateway-main.ts, store ${flags.gateway}`;
  const root = flags["gateway-root"] ? ` from ${flags["gateway-root"]}` : "";
  return `rllm gateway (${flags["gateway-build"]}${root})`;
}

/**
 * The node arguments that start the gateway side, up to its own flags (--port, --upstream, --db,
 * --durability follow). `rllm gateway` runs from the TypeScript sources under tsx (default), or
 * compiled with tsc into bench/results/dist and run by plain node, as an installed rllm runs.
 */
function gatewayEntry(): string[] {
  if (flags.gateway === "null-proxy") {
    return ["--import", "tsx", join(ROOT, "bench/lib/null-proxy.ts")];
  }
  if (flags.gateway !== "cli") {
    return ["--import", "tsx", join(ROOT, "bench/lib/gateway-main.ts"), "--store", flags.gateway];
  }
  const root = flags["gateway-root"] ?? ROOT;
  if (flags["gateway-build"] === "tsx") {
    return ["--import", "tsx", join(root, "src/cli/index.ts"), "gateway"];
  }
  if (flags["gateway-root"]) throw new Error("--gateway-root works with --gateway-build tsx only");
  const outDir = join(ROOT, "bench", "results", "dist");
  const r = spawnSync(
    process.execPath,
    [
      join(ROOT, "node_modules/typescript/bin/tsc"),
      "-p",
      join(ROOT, "tsconfig.build.json"),
      "--outDir",
      outDir,
    ],
    { stdio: "inherit", cwd: ROOT },
  );
  if (r.status !== 0) {
    throw new Error("tsc failed: cannot build the gateway for --gateway-build dist");
  }
  // dist/version.js reads ../package.json, as it does in an installed package.
  copyFileSync(join(ROOT, "package.json"), join(outDir, "..", "package.json"));
  return [join(outDir, "cli", "index.js"), "gateway"];
}

/** Children get a clean rllm environment: no RLLM_* from the caller, a throwaway home. */
function childEnv(work: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("RLLM_")) env[k] = v;
  env.RLLM_HOME = join(work, "home");
  return env;
}

async function createSessions(gatewayUrl: string, n: number): Promise<VirtualUser[]> {
  const one = async (): Promise<VirtualUser> => {
    const r = await request(`${gatewayUrl}/sessions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    const text = await r.body.text();
    if (r.statusCode !== 201) throw new Error(`POST /sessions answered ${r.statusCode}: ${text}`);
    const s = JSON.parse(text) as { url: string; token: string };
    const u = new URL(s.url);
    return {
      origin: u.origin,
      prefix: u.pathname,
      headers: { authorization: `Bearer ${s.token}` },
    };
  };
  const out: VirtualUser[] = [];
  for (let i = 0; i < n; i += 32) {
    out.push(...(await Promise.all(Array.from({ length: Math.min(32, n - i) }, one))));
  }
  return out;
}

async function measure(
  concurrency: number,
  mix: readonly MixRequest[],
  users: VirtualUser[],
  upstream: ServerProc,
  gateway: ServerProc,
): Promise<Measured> {
  type Reading = {
    t: number;
    us: number;
    up: number;
    gw: number;
    gwSys: number;
    me: number;
    sys: number;
    steal: number;
  };
  const zero: Reading = { t: 0, us: 0, up: 0, gw: 0, gwSys: 0, me: 0, sys: 0, steal: 0 };
  const at: Record<"start" | "end", Reading> = { start: zero, end: zero };
  const speedUs = calibrate();
  const tcp0 = tcpCounters();
  let tcp1 = tcp0;
  const result = await runCell({
    concurrency,
    warmupMs: warmupS * 1000,
    durationMs: durationS * 1000,
    mix,
    users,
    onWindow: (edge) => {
      if (edge === "start") tcp1 = tcpCounters();
      at[edge] = {
        t: performance.now(),
        us: Number(process.hrtime.bigint() / 1000n),
        up: cpuMsOf(upstream.child.pid),
        gw: cpuMsOf(gateway.child.pid),
        gwSys: cpuSplitOf(gateway.child.pid).system,
        me: cpuMsOf(process.pid),
        ...(({ busy, steal }) => ({ sys: busy, steal }))(systemCpuMs()),
      };
    },
  });
  const wall = at.end.t - at.start.t;
  const up = at.end.up - at.start.up;
  const gw = at.end.gw - at.start.gw;
  const n = Math.max(1, result.measured);
  return {
    ...result,
    window: [at.start.us, at.end.us],
    cpu: {
      upstreamCores: up / wall,
      gatewayCores: gw / wall,
      upstreamUsPerReq: (up * 1000) / n,
      gatewayUsPerReq: (gw * 1000) / n,
      gatewaySysUsPerReq: ((at.end.gwSys - at.start.gwSys) * 1000) / n,
      otherCores:
        Math.max(0, at.end.sys - at.start.sys - up - gw - (at.end.me - at.start.me)) / wall,
      stealCores: (at.end.steal - at.start.steal) / wall,
    },
    speedUs,
    tcp: ((tcp2) => ({
      warmupListenOverflows: tcp1.listenOverflows - tcp0.listenOverflows,
      warmupSynRetrans: tcp1.synRetrans - tcp0.synRetrans,
      windowListenOverflows: tcp2.listenOverflows - tcp1.listenOverflows,
      windowSynRetrans: tcp2.synRetrans - tcp1.synRetrans,
    }))(tcpCounters()),
  };
}

function countTraces(dbPath: string, concurrency: number, expectedOk: number): TraceCheck {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    const r = db
      .prepare(
        "SELECT COUNT(*) AS total, COALESCE(SUM(json_extract(data, '$.status') = 200), 0) AS ok FROM traces",
      )
      .get() as { total: number; ok: number };
    return {
      afterConcurrency: concurrency,
      expectedOk,
      rowsTotal: r.total,
      rowsOk: r.ok,
      equal: r.ok === expectedOk,
    };
  } finally {
    db.close();
  }
}

/**
 * Waits (up to `maxS` seconds) until the machine is quiet: other processes using under 5% of a
 * core over half a second. The machine may be shared; a busy one skews every number.
 */
async function waitForQuiet(maxS: number, ours: ServerProc[]): Promise<void> {
  if (maxS <= 0) return;
  const deadline = performance.now() + maxS * 1000;
  let warned = false;
  for (;;) {
    const pids = [process.pid, ...ours.map((p) => p.child.pid)];
    const own = () => pids.reduce<number>((acc, pid) => acc + cpuMsOf(pid), 0);
    const ownBefore = own();
    const before = systemCpuMs().busy;
    const t = performance.now();
    await pause(500);
    const other = (systemCpuMs().busy - before - (own() - ownBefore)) / (performance.now() - t);
    if (!Number.isFinite(other) || other < 0.05) return;
    if (performance.now() > deadline) {
      console.log(`      (machine still busy: other processes at ${pct(other)}; going on)`);
      return;
    }
    if (!warned) {
      console.log(`      (waiting for the machine to be quiet: other processes at ${pct(other)})`);
      warned = true;
    }
  }
}

function pause(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function progress(label: string, r: Measured): void {
  const errs = r.errorCount ? ` errors ${JSON.stringify(r.errors)}` : "";
  console.log(
    `  c=${String(r.concurrency).padStart(3)} ${label}: ${fmtInt(r.rps)} req/s, p50 ${fmtMs(r.p50)}, ` +
      `p99 ${fmtMs(r.p99)}, cpu upstream ${pct(r.cpu.upstreamCores)} gateway ${pct(r.cpu.gatewayCores)} ` +
      `loadgen ${pct(r.loadgenCpu)}, other processes ${pct(r.cpu.otherCores)}, speed probe ${r.speedUs.toFixed(1)} µs${errs}`,
  );
  if (r.cpu.otherCores > NOISY) {
    console.log(
      `      warning: other processes used ${pct(r.cpu.otherCores)} of a core during this cell; its numbers are disturbed`,
    );
  }
  const t = r.tcp;
  if (
    t.warmupListenOverflows + t.warmupSynRetrans + t.windowListenOverflows + t.windowSynRetrans >
    0
  ) {
    console.log(
      `      TCP (machine-wide): ${t.warmupListenOverflows} listen overflows / ${t.warmupSynRetrans} SYN retransmits ` +
        `while connecting and warming up, ${t.windowListenOverflows} / ${t.windowSynRetrans} in the window`,
    );
  }
  if (r.prime.max > 1000) {
    const first = r.slowest.filter((x) => x.iter === 0).slice(0, 3);
    console.log(
      `      connection set-up: ${r.concurrency} first requests took ${fmtMs(r.prime.ms)} to all complete ` +
        `(p50 ${fmtMs(r.prime.p50)}, max ${fmtMs(r.prime.max)}: ${first.map((x) => `VU ${x.vu}`).join(", ")}...); ` +
        "not in the latencies above",
    );
  }
  for (const e of r.errorSamples) console.log(`      ${e}`);
}

function pct(x: number): string {
  return Number.isFinite(x) ? `${(100 * x).toFixed(0)}%` : "–";
}

function printHeader(
  upstream: ServerProc,
  gateway: ServerProc,
  dbPath: string,
  serverCpus: string | undefined,
): void {
  const cpuName = cpus()[0]?.model ?? "unknown CPU";
  console.log(`# Gateway benchmark — ${cpus().length} cores (${cpuName}), node ${process.version}`);
  console.log(
    `load generator on CPUs ${affinityOf(process.pid) || "?"}; fake upstream (pid ${upstream.child.pid}) ` +
      `on ${upstream.child.pid ? affinityOf(upstream.child.pid) : "?"}; gateway (pid ${gateway.child.pid}) ` +
      `on ${gateway.child.pid ? affinityOf(gateway.child.pid) : "?"}${serverCpus ? "" : " (unpinned)"}`,
  );
  console.log(
    `${durationS} s measured after ${warmupS} s warm-up per cell; concurrency ${concurrencies.join(", ")}; ` +
      `gateway: ${describeGateway()}; ` +
      `traces → ${dbPath} (durability ${flags.durability}); fake upstream ${flags["upstream-generate"] ? "generates every answer" : "replays repeated requests"}${upstreamBatch ? " under SCHED_BATCH" : ""}${flags["direct-tokens"] ? "; direct requests carry logprobs + return_token_ids" : ""}${flags.profile ? "; gateway under --cpu-prof" : ""}`,
  );
  console.log("");
}

function errorCell(r: Measured | undefined): string {
  if (!r) return "–";
  if (r.errorCount === 0) return "0";
  return Object.entries(r.errors)
    .map(([k, v]) => `${k}:${v}`)
    .join(" ");
}

function report(
  rows: Row[],
  checks: TraceCheck[],
  profile: ProfileSummary | undefined,
  gatewayMeasured: number,
  info: {
    dbPath: string;
    serverCpus: string | undefined;
    upstreamCpus: string | undefined;
    seed: number;
  },
): void {
  console.log("");
  console.log(
    markdownTable(
      [
        "concurrency",
        "direct req/s",
        "direct p50",
        "direct p99",
        "gateway req/s",
        "gateway p50",
        "gateway p99",
        "added p50",
        "gw/direct req/s",
        "errors (direct / gateway)",
      ],
      rows.map((r) => {
        const d = r.direct;
        const g = r.gateway;
        return [
          String(r.concurrency),
          d ? fmtInt(d.rps) : "–",
          d ? fmtMs(d.p50) : "–",
          d ? fmtMs(d.p99) : "–",
          g ? fmtInt(g.rps) : "–",
          g ? fmtMs(g.p50) : "–",
          g ? fmtMs(g.p99) : "–",
          d && g ? fmtMs(g.p50 - d.p50) : "–",
          d && g ? `${((100 * g.rps) / d.rps).toFixed(0)}%` : "–",
          `${errorCell(d)} / ${errorCell(g)}`,
        ];
      }),
    ),
  );
  console.log("");
  console.log(
    `Server CPU over the measured window${info.upstreamCpus === info.serverCpus ? " (both servers share the server core)" : ""}:`,
  );
  console.log(
    markdownTable(
      [
        "concurrency",
        "target",
        "upstream CPU",
        "gateway CPU",
        "upstream µs/req",
        "gateway µs/req (sys)",
        "load-gen CPU",
        "other procs CPU",
      ],
      rows.flatMap((r) =>
        (["direct", "gateway"] as const)
          .filter((t) => r[t])
          .map((t) => {
            const m = r[t]!;
            return [
              String(r.concurrency),
              t,
              pct(m.cpu.upstreamCores),
              pct(m.cpu.gatewayCores),
              m.cpu.upstreamUsPerReq.toFixed(0),
              t === "gateway"
                ? `${m.cpu.gatewayUsPerReq.toFixed(0)} (${m.cpu.gatewaySysUsPerReq.toFixed(0)})`
                : "–",
              pct(m.loadgenCpu),
              `${pct(m.cpu.otherCores)}${m.cpu.otherCores > NOISY ? " (noisy)" : ""}`,
            ];
          }),
      ),
    ),
  );
  const last = checks[checks.length - 1];
  if (last) {
    console.log("");
    console.log(
      `Traces: ${fmtInt(last.rowsOk)} rows with status 200 (${fmtInt(last.rowsTotal)} rows in all) in ` +
        `${info.dbPath} for ${fmtInt(last.expectedOk)} successful gateway requests: ` +
        `${checks.every((c) => c.equal) ? "every trace is in SQLite" : "MISMATCH"}`,
    );
  }

  const targetsOut = evaluate(rows, checks);
  console.log("");
  for (const t of targetsOut) console.log(`${t.status} ${t.name}: ${t.detail}`);

  if (profile) {
    console.log("");
    console.log("Gateway CPU profile, measured windows of the gateway cells only:");
    console.log(formatProfile(profile, gatewayMeasured));
  }

  mkdirSync(dirname(flags.out), { recursive: true });
  writeFileSync(
    flags.out,
    `${JSON.stringify(
      {
        date: new Date().toISOString(),
        tree: treeState(),
        machine: {
          cores: cpus().length,
          cpu: cpus()[0]?.model ?? null,
          node: process.version,
          pinned: info.serverCpus !== undefined,
          loadgenCpus: info.serverCpus !== undefined ? flags["loadgen-cpus"] : null,
          serverCpus: info.serverCpus ?? null,
          upstreamCpus: info.upstreamCpus ?? null,
        },
        settings: {
          durationS,
          warmupS,
          concurrencies,
          targets: [...targets],
          seed: info.seed,
          durability: flags.durability,
          directTokens: flags["direct-tokens"],
          upstreamReplay: !flags["upstream-generate"],
          upstreamSched: upstreamBatch ? "batch" : "normal",
          gatewayBuild: flags["gateway-build"],
          gateway: flags.gateway,
          gatewayRoot: flags["gateway-root"] ?? null,
          profile: flags.profile,
        },
        rows: rows.map((r) => ({
          concurrency: r.concurrency,
          direct: r.direct ?? null,
          gateway: r.gateway ?? null,
          addedP50Ms: r.direct && r.gateway ? r.gateway.p50 - r.direct.p50 : null,
          addedP99Ms: r.direct && r.gateway ? r.gateway.p99 - r.direct.p99 : null,
          throughputRatio: r.direct && r.gateway ? r.gateway.rps / r.direct.rps : null,
        })),
        traces: checks,
        targets: targetsOut,
        profile: profile ?? null,
      },
      null,
      2,
    )}\n`,
  );
  console.log("");
  console.log(`results written to ${relative(process.cwd(), flags.out) || flags.out}`);
  if (flags.strict && targetsOut.some((t) => t.status === "FAIL")) process.exitCode = 1;
}

function evaluate(rows: Row[], checks: TraceCheck[]): Target[] {
  const at = (c: number) => rows.find((r) => r.concurrency === c);
  const out: Target[] = [];
  const r1 = at(1);
  if (r1?.direct && r1.gateway) {
    const added = r1.gateway.p50 - r1.direct.p50;
    out.push({
      name: "added p50 ≤ 1 ms at concurrency 1",
      status: added <= 1 ? "PASS" : "FAIL",
      detail: `added p50 ${fmtMs(added)} (direct ${fmtMs(r1.direct.p50)}, gateway ${fmtMs(r1.gateway.p50)})`,
    });
  } else {
    out.push({
      name: "added p50 ≤ 1 ms at concurrency 1",
      status: "SKIP",
      detail: "needs both targets at concurrency 1",
    });
  }
  const r64 = at(64);
  if (r64?.gateway) {
    const check = checks.find((c) => c.afterConcurrency === 64);
    const fast = r64.gateway.rps >= 4000;
    const traced = check?.equal === true;
    out.push({
      name: "≥ 4,000 req/s at concurrency 64 with every trace in SQLite",
      status: fast && traced && r64.gateway.errorCount === 0 ? "PASS" : "FAIL",
      detail:
        `${fmtInt(r64.gateway.rps)} req/s; traces ${check ? `${fmtInt(check.rowsOk)} ok rows / ${fmtInt(check.expectedOk)} ok requests` : "not checked"}` +
        `; errors ${r64.gateway.errorCount}`,
    });
  } else {
    out.push({
      name: "≥ 4,000 req/s at concurrency 64 with every trace in SQLite",
      status: "SKIP",
      detail: "needs the gateway at concurrency 64",
    });
  }
  const r256 = at(256);
  if (r256?.gateway) {
    const errs = r256.gateway.errorCount + (r256.direct?.errorCount ?? 0);
    out.push({
      name: "no errors at concurrency 256",
      status: errs === 0 ? "PASS" : "FAIL",
      detail: `gateway ${errorCell(r256.gateway)}, direct ${errorCell(r256.direct)}`,
    });
  } else {
    out.push({
      name: "no errors at concurrency 256",
      status: "SKIP",
      detail: "needs the gateway at concurrency 256",
    });
  }
  return out;
}
