/**
 * The trainer on several processes (python/PROTOCOL.md, "Distributed trainer"): the torchrun
 * command line of every node, the `world` the worker's hello reports, and torchrun's failure
 * summary turned into an error that names the rank that failed.
 *
 *   node 0 (worker.ts, through TorchrunGroup):  <python> -m torch.distributed.run --rdzv-backend static
 *                          --rdzv-endpoint H:P --nnodes M --node-rank 0 --nproc-per-node N
 *                          --max-restarts 0 --monitor-interval 0.5 -m rllm_worker
 *                          --socket X/rpc.sock --exchange X --role trainer --collective-timeout-s T
 *   node R ≥ 1 (`rllm worker`): the same with --node-rank R and without --socket/--exchange
 *
 * Decided here, once:
 *   - nproc 1 and nnodes 1 is the plain launch (no torchrun), and so is every sampler;
 *   - one node rendezvouses on 127.0.0.1 at a free port rllm picks; several at backend.rdzvEndpoint;
 *   - global rank = node · nproc + local rank (static rendezvous): rank 0 is on node 0;
 *   - of the ranks torchrun's summary lists, the first named is the cause: a rank killed by a
 *     signal other than torchrun's own SIGTERM, or one whose traceback is not a lost peer's
 *     ("Connection closed by peer": a symptom of another rank's death); else torchrun's root cause
 *     (its timestamps have one-second resolution, so its "first observed" is often a symptom).
 */
import { readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { constants } from "node:os";
import { z } from "zod";
import type { TorchBackendConfig } from "./config.js";

/** How the trainer's ranks are launched; undefined: the plain one-process launch. */
export interface DistributedLaunch {
  /** Processes per node. */
  nproc: number;
  nnodes: number;
  /** "host:port"; undefined on one node: a free port of 127.0.0.1 at launch. */
  rdzvEndpoint?: string;
  collectiveTimeoutS: number;
}

/** The torchrun launch a config asks for (role trainer, nproc or nnodes above 1), else undefined. */
export function distributedLaunch(
  config: TorchBackendConfig,
  role: "trainer" | "sampler",
): DistributedLaunch | undefined {
  if (role !== "trainer" || (config.nproc === 1 && config.nnodes === 1)) return undefined;
  return {
    nproc: config.nproc,
    nnodes: config.nnodes,
    ...(config.rdzvEndpoint ? { rdzvEndpoint: config.rdzvEndpoint } : {}),
    collectiveTimeoutS: config.timeouts.collectiveS,
  };
}

/** `127.0.0.1:<a port free now>` (the rendezvous of a one-node launch). */
export async function freeLocalEndpoint(): Promise<string> {
  const server = createServer();
  await new Promise<void>((ok, err) => {
    server.once("error", err);
    server.listen(0, "127.0.0.1", () => ok());
  });
  const { port } = server.address() as { port: number };
  await new Promise<void>((done) => server.close(() => done()));
  return `127.0.0.1:${port}`;
}

export interface NodeLaunch {
  nproc: number;
  nnodes: number;
  nodeRank: number;
  rdzvEndpoint: string;
  collectiveTimeoutS: number;
}

/**
 * The arguments after the interpreter: torchrun's, then `entry` (default `-m rllm_worker`), then
 * the worker's — `socket` (node 0 only: its rank 0 connects it) and the role and timeout.
 */
export function torchrunArgs(
  node: NodeLaunch,
  worker: { socket?: string; exchange?: string; entry?: string[] },
): string[] {
  return [
    ...["-m", "torch.distributed.run", "--rdzv-backend", "static"],
    ...["--rdzv-endpoint", node.rdzvEndpoint, "--nnodes", String(node.nnodes)],
    ...["--node-rank", String(node.nodeRank), "--nproc-per-node", String(node.nproc)],
    ...["--max-restarts", "0", "--monitor-interval", "0.5"],
    ...(worker.entry ?? ["-m", "rllm_worker"]),
    ...(worker.socket ? ["--socket", worker.socket] : []),
    ...(worker.exchange ? ["--exchange", worker.exchange] : []),
    ...["--role", "trainer", "--collective-timeout-s", String(node.collectiveTimeoutS)],
  ];
}

/** The `rllm worker` line that starts node `nodeRank` of a launch whose node 0 is this one. */
export function otherNodeCommand(launch: NodeLaunch): string {
  const { nproc, nnodes, nodeRank, rdzvEndpoint, collectiveTimeoutS } = launch;
  return `rllm worker --nproc ${nproc} --nnodes ${nnodes} --node-rank ${nodeRank} --rdzv-endpoint ${rdzvEndpoint} --collective-timeout-s ${collectiveTimeoutS}`;
}

// ── the world the hello reports ──────────────────────────────────────────────────────────────────

const WorldSchema = z.strictObject({
  size: z.number().int().min(1),
  nodes: z.number().int().min(1),
  ranks: z.array(
    z.strictObject({
      rank: z.number().int().nonnegative(),
      localRank: z.number().int().nonnegative(),
      node: z.number().int().nonnegative(),
      pid: z.number().int().positive(),
      host: z.string(),
    }),
  ),
});
export type WorkerWorld = z.infer<typeof WorldSchema>;

/**
 * The hello's `world` checked against the launch: a world that does not follow the contract, or
 * is not the launch's (size, nodes, one entry per rank), is an error naming what differs.
 */
export function parseWorld(world: unknown, launch: DistributedLaunch): WorkerWorld {
  const where = "the torch trainer's hello";
  if (world === undefined)
    throw new Error(
      `${where} has no "world", but it runs under torchrun (backend.nproc ${launch.nproc}, backend.nnodes ${launch.nnodes}): python/rllm_worker is older than the TypeScript side (python/PROTOCOL.md)`,
    );
  const r = WorldSchema.safeParse(world);
  if (!r.success)
    throw new Error(
      `${where}'s "world" does not follow python/PROTOCOL.md: ${r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
    );
  const w = r.data;
  const size = launch.nproc * launch.nnodes;
  const ranks = w.ranks.map((x) => x.rank).sort((a, b) => a - b);
  if (
    w.size !== size ||
    w.nodes !== launch.nnodes ||
    ranks.some((x, i) => x !== i) ||
    ranks.length !== size
  )
    throw new Error(
      `${where} reports ${w.size} ranks on ${w.nodes} nodes (ranks ${ranks.join(",")}); the launch has ${size} (${launch.nproc} per node on ${launch.nnodes})`,
    );
  return w;
}

/** The live children of `pid` (Linux's /proc; elsewhere none). */
function childrenOf(pid: number): number[] {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [];
  }
  return entries.filter((e) => /^\d+$/.test(e) && statField(Number(e), 1) === pid).map(Number);
}

/**
 * Field `i` after `pid (comm)` of /proc/<pid>/stat (1: the parent's pid, 19: the start time in
 * clock ticks since boot) as a number; undefined when it cannot be read (gone, or no /proc).
 */
function statField(pid: number, i: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // comm may hold spaces and parentheses: the fields start after its last ")"
    const v = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[i]);
    return Number.isFinite(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** The start time's field of /proc/<pid>/stat (statField). */
const STAT_START = 19;

// ── node 0's group, as worker.ts drives it ───────────────────────────────────────────────────────

/** How long a group whose rank 0 closed its connection gets to end (and print its summary). */
const GROUP_END_MS = 15_000;

/**
 * Node 0's torchrun, for worker.ts: its command line, the hello it must send, the process groups
 * that killing it takes, and its exit turned into an error that names the rank that failed.
 */
export class TorchrunGroup {
  /** How long after rank 0's connection closes the group gets to end before it is killed. */
  readonly endMs = GROUP_END_MS;
  /** The ranks of the hello (checkHello); undefined before it. */
  world: WorkerWorld | undefined;
  /** This node's ranks of the hello: pid → its start time then (undefined: no /proc). */
  private readonly ranks = new Map<number, number | undefined>();

  private constructor(readonly launch: DistributedLaunch & { rdzvEndpoint: string }) {}

  /** The launch with its rendezvous resolved (one node: a free port of 127.0.0.1). */
  static async create(launch: DistributedLaunch): Promise<TorchrunGroup> {
    const rdzvEndpoint = launch.rdzvEndpoint ?? (await freeLocalEndpoint());
    return new TorchrunGroup({ ...launch, rdzvEndpoint });
  }

  /** The arguments after the interpreter (torchrunArgs of node 0). */
  args(worker: { socket: string; exchange: string; entry: string[] }): string[] {
    return torchrunArgs({ ...this.launch, nodeRank: 0 }, worker);
  }

  /** What a hello that never came may mean besides a slow start-up (the other nodes). */
  startupHint(): string {
    const nodes = this.launch.nnodes;
    return nodes > 1
      ? `; or nodes 1 to ${nodes - 1} never joined: run the logged \`rllm worker\` line on each`
      : "";
  }

  /** The hello's `world`, checked against the launch (parseWorld) and kept. */
  checkHello(hello: Record<string, unknown>): WorkerWorld {
    this.world = parseWorld(hello.world, this.launch);
    for (const r of this.world.ranks)
      if (r.node === 0) this.ranks.set(r.pid, statField(r.pid, STAT_START));
    return this.world;
  }

  /**
   * The pids of this node's ranks, each the leader of its own process group (torchrun starts them
   * with start_new_session): torchrun's live children (Linux's /proc), and the ranks of hello's
   * world (orphans once torchrun is gone) while each pid is still that rank — the start time it
   * had at hello; without /proc, while torchrun runs — never a pid reused by another process.
   */
  rankGroups(torchrunPid: number, torchrunRunning: boolean): number[] {
    const ranks = [...this.ranks].filter(([pid, start]) =>
      start === undefined ? torchrunRunning : statField(pid, STAT_START) === start,
    );
    return [...new Set([...childrenOf(torchrunPid), ...ranks.map(([pid]) => pid)])];
  }

  /**
   * The failure of a group that ended, from torchrun's summary in `stderr` — the failed rank, its
   * traceback, then the others — and `how` torchrun itself ended; "" when there is no summary.
   */
  exitMessage(stderr: string, how: string): string {
    const { nproc, nnodes } = this.launch;
    const failed = describeGroupFailure(stderr, {
      size: nproc * nnodes,
      nproc,
      ...(this.world ? { ranks: this.world.ranks } : {}),
    });
    return failed ? `${failed}\ntorchrun ended every rank (it ${how})` : "";
  }
}

// ── torchrun's failure summary ───────────────────────────────────────────────────────────────────

/** One rank of torchrun's failure summary (ChildFailedError). */
export interface RankFailure {
  rank: number;
  localRank: number;
  host: string;
  pid: number | undefined;
  /** The exit code; negative: killed by signal −code. */
  exitCode: number;
  /** The signal's name when killed by one. */
  signal: string | undefined;
  /** The rank's traceback (its error file, `@record`), or torchrun's note such as "Signal 9 …". */
  traceback: string;
  /** torchrun's "Root Cause (first observed failure)". */
  rootCause: boolean;
}

const SEPARATOR = /^(?:-{20,}|={20,})$/;

/**
 * The ranks of the last failure summary in `stderr` (what torchrun prints before it exits with
 * a failed rank), in torchrun's order; [] when there is none.
 */
export function parseFailureSummary(stderr: string): RankFailure[] {
  const lines = stderr.split("\n");
  const start = lines.findLastIndex((l) => / FAILED$/.test(l));
  if (start < 0) return [];
  const out: RankFailure[] = [];
  let rootCause = false;
  let cur: { fields: Record<string, string>; traceback: string[] | undefined } | undefined;
  const flush = () => {
    if (cur) out.push(toFailure(cur.fields, cur.traceback ?? [], rootCause));
    cur = undefined;
  };
  for (const line of lines.slice(start + 1)) {
    if (line.startsWith("Root Cause")) {
      flush();
      rootCause = true;
    } else if (/^\[\d+\]:$/.test(line)) {
      flush();
      cur = { fields: {}, traceback: undefined };
    } else if (SEPARATOR.test(line)) flush();
    else if (cur?.traceback) cur.traceback.push(line.replace(/^ {2}/, ""));
    else if (cur) {
      const m = /^ {2}(\w+)\s*: ?(.*)$/.exec(line);
      if (!m) continue;
      if (m[1] === "traceback") cur.traceback = [m[2]!];
      else cur.fields[m[1]!] = m[2]!;
    }
  }
  flush();
  return out.filter((f) => Number.isInteger(f.rank));
}

function toFailure(fields: Record<string, string>, tb: string[], rootCause: boolean): RankFailure {
  const rank = /^(\d+) \(local_rank: (\d+)\)/.exec(fields.rank ?? "");
  const exit = /^(-?\d+)(?: \(pid: (\d+)\))?(?:\s+\((\w+)\))?/.exec((fields.exitcode ?? "").trim());
  const exitCode = exit ? Number(exit[1]) : Number.NaN;
  return {
    rank: rank ? Number(rank[1]) : Number.NaN,
    localRank: rank ? Number(rank[2]) : Number.NaN,
    host: fields.host ?? "",
    pid: exit?.[2] ? Number(exit[2]) : undefined,
    exitCode,
    signal: exitCode < 0 ? (exit?.[3] ?? signalName(-exitCode)) : undefined,
    traceback: tb.join("\n").trim(),
    rootCause,
  };
}

function signalName(n: number): string {
  const found = Object.entries(constants.signals).find(([, v]) => v === n);
  return found ? found[0] : `signal ${n}`;
}

/** A traceback that only says another rank went away (gloo, NCCL, the TCP store). */
const LOST_PEER =
  /Connection (?:closed|reset) by peer|remote (?:worker|process|peer)|Broken pipe|DistNetworkError|NCCL communicator was aborted/i;

/** Whether an error message only says that another rank went away. */
function lostPeer(message: string): boolean {
  return LOST_PEER.test(message);
}

/** Whether `f` caused the group's end rather than suffered it (see the header). */
function isCause(f: RankFailure): boolean {
  if (f.signal) return f.signal !== "SIGTERM";
  return !lostPeer(f.traceback);
}

/** The failures, the cause first (see the header), torchrun's root cause and rank order after. */
export function orderFailures(failures: RankFailure[]): RankFailure[] {
  const key = (f: RankFailure) => [isCause(f) ? 0 : 1, f.rootCause ? 0 : 1, f.rank];
  return [...failures].sort((a, b) => {
    const [ka, kb] = [key(a), key(b)];
    return ka[0]! - kb[0]! || ka[1]! - kb[1]! || ka[2]! - kb[2]!;
  });
}

/**
 * The error text of a failed group: the cause's rank first — "rank 1 of 2 (node 0, local rank 1,
 * host h, pid p) was killed by SIGKILL" or "… exited with code 1" — and its traceback, then one
 * line per other failed rank; "" when `stderr` holds no summary.
 */
export function describeGroupFailure(
  stderr: string,
  world: { size: number; nproc: number; ranks?: WorkerWorld["ranks"] },
): string {
  const [first, ...rest] = orderFailures(parseFailureSummary(stderr));
  if (!first) return "";
  const head = (f: RankFailure) => {
    const node =
      world.ranks?.find((r) => r.rank === f.rank)?.node ?? Math.floor(f.rank / world.nproc);
    const how = f.signal ? `was killed by ${f.signal}` : `exited with code ${f.exitCode}`;
    const pid = f.pid === undefined ? "" : `, pid ${f.pid}`;
    return `rank ${f.rank} of ${world.size} (node ${node}, local rank ${f.localRank}, host ${f.host}${pid}) ${how}`;
  };
  const lastLine = (tb: string) =>
    tb
      .split("\n")
      .filter((l) => l.trim())
      .at(-1)
      ?.trim() ?? "";
  const indent = (tb: string) =>
    tb
      .split("\n")
      .map((l) => `  ${l}`)
      .join("\n");
  return [
    `${head(first)}`,
    first.traceback ? indent(first.traceback) : "",
    ...rest.map((f) => `then ${head(f)}${f.traceback ? `: ${lastLine(f.traceback)}` : ""}`),
  ]
    .filter(Boolean)
    .join("\n");
}
