/**
 * Child processes for the benchmarks: servers pinned to a core with `taskset`, readiness by polling
 * `/health`, CPU time read from /proc, and a clean stop (SIGTERM, so `--cpu-prof` gets written).
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { request } from "undici";

/** Whether `taskset` can pin processes here (Linux with util-linux). */
export function canPin(): boolean {
  return spawnSync("taskset", ["-c", "0", "true"], { stdio: "ignore" }).status === 0;
}

/** Whether `chrt` can start a process under SCHED_BATCH here (Linux with util-linux). */
export function canBatch(): boolean {
  return spawnSync("chrt", ["--batch", "0", "true"], { stdio: "ignore" }).status === 0;
}

/** The CPUs this process may run on, as taskset prints them (e.g. "0-1"); "" when unknown. */
export function affinityOf(pid: number): string {
  const r = spawnSync("taskset", ["-cp", String(pid)], { encoding: "utf8" });
  if (r.status !== 0) return "";
  const m = /:\s*(\S+)\s*$/.exec(r.stdout.trim());
  return m ? m[1]! : "";
}

/** A port that was free a moment ago on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const addr = s.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      s.close(() => resolve(port));
    });
  });
}

export interface ServerProc {
  name: string;
  url: string;
  child: ChildProcess;
  /** The last lines the process wrote (stdout and stderr), for diagnostics. */
  log(): string;
  stop(): Promise<void>;
}

export interface SpawnServerOptions {
  name: string;
  /** Node arguments after the node binary (flags, script, script args). */
  nodeArgs: string[];
  url: string;
  /** Pin to this CPU list with taskset (e.g. "1"); undefined for no pinning. */
  cpus?: string;
  /**
   * Start it under Linux's SCHED_BATCH policy (`chrt --batch 0`): same share of the CPU, but its
   * wake-ups do not preempt what is running on that core.
   */
  batch?: boolean;
  /** The whole environment of the child (default: this process's). */
  env?: NodeJS.ProcessEnv;
  readyTimeoutMs?: number;
}

/** Starts a Node server process and resolves once GET `${url}/health` answers 200. */
export async function spawnServer(o: SpawnServerOptions): Promise<ServerProc> {
  const node = [process.execPath, ...o.nodeArgs];
  const pinned = o.cpus ? ["taskset", "-c", o.cpus, ...node] : node;
  const [cmd, ...args] = o.batch ? ["chrt", "--batch", "0", ...pinned] : pinned;
  const child = spawn(cmd!, args, {
    stdio: ["ignore", "pipe", "pipe"],
    env: o.env ?? process.env,
  });
  const lines: string[] = [];
  const keep = (b: Buffer) => {
    for (const l of b.toString("utf8").split("\n")) if (l.trim()) lines.push(l);
    if (lines.length > 200) lines.splice(0, lines.length - 200);
  };
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  let exited: number | null | undefined;
  const exit = new Promise<void>((resolve) => {
    child.once("exit", (code, signal) => {
      exited = code ?? (signal ? -1 : 0);
      resolve();
    });
  });
  const log = () => lines.join("\n");
  const proc: ServerProc = {
    name: o.name,
    url: o.url,
    child,
    log,
    async stop() {
      if (exited !== undefined) return;
      child.kill("SIGTERM");
      const t = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exit;
      clearTimeout(t);
    },
  };
  const deadline = Date.now() + (o.readyTimeoutMs ?? 30_000);
  for (;;) {
    if (exited !== undefined) {
      throw new Error(`${o.name} exited (code ${exited}) before it was ready:\n${log()}`);
    }
    try {
      const r = await request(`${o.url}/health`, { headersTimeout: 1_000, bodyTimeout: 1_000 });
      await r.body.dump();
      if (r.statusCode === 200) return proc;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await proc.stop();
      throw new Error(`${o.name} was not ready at ${o.url}/health in time:\n${log()}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

const CLK_TCK = (() => {
  const r = spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" });
  const n = Number(r.stdout?.trim());
  return Number.isFinite(n) && n > 0 ? n : 100;
})();

/** CPU time (user + system) a process has used so far, in ms; NaN when /proc is not readable. */
export function cpuMsOf(pid: number | undefined): number {
  const t = cpuSplitOf(pid);
  return t.user + t.system;
}

/** User and system CPU time of a process so far, in ms (NaN when /proc is not readable). */
export function cpuSplitOf(pid: number | undefined): { user: number; system: number } {
  if (pid === undefined) return { user: Number.NaN, system: Number.NaN };
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which is in parentheses and may hold spaces).
    const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return {
      user: (Number(rest[11]) * 1000) / CLK_TCK,
      system: (Number(rest[12]) * 1000) / CLK_TCK,
    };
  } catch {
    return { user: Number.NaN, system: Number.NaN };
  }
}

/** Machine-wide CPU time so far, in ms: busy (user + nice + system) and steal; NaN off Linux. */
export function systemCpuMs(): { busy: number; steal: number } {
  try {
    const line = readFileSync("/proc/stat", "utf8").split("\n", 1)[0]!;
    const f = line.trim().split(/\s+/).slice(1).map(Number);
    const [user = 0, nice = 0, system = 0, , , , , steal = 0] = f;
    return { busy: ((user + nice + system) * 1000) / CLK_TCK, steal: (steal * 1000) / CLK_TCK };
  } catch {
    return { busy: Number.NaN, steal: Number.NaN };
  }
}

/** Machine-wide TCP counters that reveal connection-setup stalls (Linux; NaN elsewhere). */
export function tcpCounters(): { listenOverflows: number; synRetrans: number } {
  try {
    const lines = readFileSync("/proc/net/netstat", "utf8").split("\n");
    for (let i = 0; i + 1 < lines.length; i++) {
      if (!lines[i]!.startsWith("TcpExt:")) continue;
      const names = lines[i]!.split(/\s+/);
      const vals = lines[i + 1]!.split(/\s+/).map(Number);
      const get = (n: string) => vals[names.indexOf(n)] ?? Number.NaN;
      return { listenOverflows: get("ListenOverflows"), synRetrans: get("TCPSynRetrans") };
    }
  } catch {
    // not Linux
  }
  return { listenOverflows: Number.NaN, synRetrans: Number.NaN };
}

/** Samples this process's memory every `ms` until `stop()`, which returns the peaks seen. */
export function memoryPeaks(ms = 50): { stop(): { peakRss: number; peakHeap: number } } {
  let peakRss = 0;
  let peakHeap = 0;
  const sample = () => {
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    peakHeap = Math.max(peakHeap, m.heapUsed);
  };
  sample();
  const timer = setInterval(sample, ms);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return { peakRss, peakHeap };
    },
  };
}
