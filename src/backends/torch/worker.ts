/**
 * One Python worker process (`python -m rllm_worker`) and the RPC to it, as python/PROTOCOL.md
 * states: newline-delimited JSON over a Unix socket in a private exchange directory, where the
 * safetensors files of each call's tensors also go (tensors.ts).
 *
 *   const w = await WorkerProcess.start({ python, role: "trainer", startupTimeoutMs });
 *   const r = await w.call("init", { model, ... }, { timeoutMs });
 *   await w.close();
 *
 * Decided here, once:
 *   - the worker runs in a process group of its own (`detached`): a terminal's Ctrl-C reaches the
 *     Node process only, so `rllm train` can finish its step and checkpoint before it stops; every
 *     way of ending a worker (close(), a timeout, a malformed reply, Node exiting) kills the whole
 *     group, so nothing the worker started outlives it;
 *   - a call past its timeout means the worker is hung: the group is killed and every pending call
 *     rejects, naming the method and the timeout (the worker's state is unknown after a hang);
 *   - a worker that exits or dies rejects every pending call and every later one with its exit
 *     code or signal and the tail of its stderr (the Python traceback);
 *   - a reply line that is not JSON, or names no pending call, means the stream cannot be trusted:
 *     the worker is killed and every pending call rejects with the line (never a hang);
 *   - on Node's `exit` every live worker group is killed; on SIGINT too when nothing else listens
 *     for SIGINT (then Node would have exited; with a listener, such as `rllm train`'s graceful
 *     stop, the listener decides and `exit` still cleans up);
 *   - a trainer with `distributed` runs under torchrun (torchrun.ts's TorchrunGroup): "the group"
 *     is then torchrun's and every local rank's (each rank leads a session of its own), so the
 *     kills above reach every rank and what it started; hello's `world` is checked against the
 *     launch, and a group's exit names the rank that failed first, with its traceback.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { INSTALL_COMMAND, makeExchangeDir, workerEnv } from "./python-env.js";
import { type DistributedLaunch, TorchrunGroup, type WorkerWorld } from "./torchrun.js";

export type WorkerRole = "trainer" | "sampler";

/** The worker's `hello`: what it runs on. */
export interface WorkerHello {
  pid: number;
  role: WorkerRole;
  python: string;
  torch: string;
  transformers: string;
  peft: string;
  cuda: boolean;
  /** Under torchrun: every rank, from rank 0's gather (python/PROTOCOL.md); absent otherwise. */
  world?: WorkerWorld;
}

export interface WorkerStartOptions {
  python: string;
  role: WorkerRole;
  /** Seconds-scale limit from spawn to `hello` (imports, CUDA init). */
  startupTimeoutMs: number;
  /** The worker's `log` events: progress lines for the user. */
  log?: (line: string) => void;
  /** The worker's stderr (and stdout), line by line (debug level). */
  debug?: (line: string) => void;
  /** What the interpreter runs before `--socket …` (default `-m rllm_worker`; tests: a script). */
  entry?: string[];
  /** Extra environment for the worker. */
  env?: NodeJS.ProcessEnv;
  /** Run the trainer's ranks under torchrun (torchrun.ts's distributedLaunch); absent: plain. */
  distributed?: DistributedLaunch;
}

export interface CallOptions {
  timeoutMs: number;
  /**
   * Events that name this call's id (`step` events of a generate). What it throws fails the call
   * (when the reply comes), never the RPC stream.
   */
  onEvent?: (event: Record<string, unknown>) => void;
}

/** A call the worker answered with an error: its Python exception, message and traceback. */
export class WorkerError extends Error {
  override name = "WorkerError";
  constructor(
    readonly method: string,
    readonly type: string,
    readonly pythonMessage: string,
    readonly traceback: string,
  ) {
    super(`${method}: ${type}: ${pythonMessage}${traceback ? `\n${traceback.trimEnd()}` : ""}`);
  }
}

interface Pending {
  method: string;
  resolve: (result: Record<string, unknown>) => void;
  reject: (e: Error) => void;
  onEvent: ((event: Record<string, unknown>) => void) | undefined;
  /** What the caller's onEvent threw: the call rejects with it when its reply comes. */
  eventError?: Error;
  timer: NodeJS.Timeout;
}

const STDERR_TAIL_BYTES = 64 * 1024;

// ── every live worker group, killed when Node exits ─────────────────────────────────────────────

const live = new Set<WorkerProcess>();

/** Node is going away: every worker group killed, every exchange dir removed (synchronously). */
function killAllGroups(): void {
  for (const w of live) {
    w.killGroup("SIGKILL");
    rmSync(w.exchange, { recursive: true, force: true });
  }
}

function onSigint(): void {
  if (process.listenerCount("SIGINT") > 1) return; // someone else decides
  killAllGroups();
  process.exit(130);
}

function track(w: WorkerProcess): void {
  if (live.size === 0) {
    process.on("exit", killAllGroups);
    process.on("SIGINT", onSigint);
  }
  live.add(w);
}

function untrack(w: WorkerProcess): void {
  if (!live.delete(w) || live.size > 0) return;
  process.off("exit", killAllGroups);
  process.off("SIGINT", onSigint);
}

// ── the worker ───────────────────────────────────────────────────────────────────────────────────

export class WorkerProcess {
  readonly role: WorkerRole;
  /** The exchange directory: the socket and every call's tensor files. */
  readonly exchange: string;
  hello: WorkerHello | undefined;
  private readonly child: ChildProcess;
  private readonly server: Server;
  private socket: Socket | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private stderrTail = "";
  private stderrLine = "";
  /** Why the worker can take no more calls (set once). */
  private dead: Error | undefined;
  private exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private readonly exitedPromise: Promise<void>;
  private onHello: ((e: Record<string, unknown>) => void) | undefined;

  private constructor(
    private readonly options: WorkerStartOptions,
    exchange: string,
    server: Server,
    /** Node 0's torchrun; undefined: the plain launch. */
    private readonly torchrun: TorchrunGroup | undefined,
  ) {
    this.role = options.role;
    this.exchange = exchange;
    this.server = server;
    const socket = join(exchange, "rpc.sock");
    const entry = options.entry ?? ["-m", "rllm_worker"];
    const args = torchrun
      ? torchrun.args({ socket, exchange, entry })
      : [...entry, "--socket", socket, "--exchange", exchange, "--role", options.role];
    this.child = spawn(options.python, args, {
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: workerEnv(options.env),
    });
    // its stdout (a library's prints) goes with stderr, never into a command's own output
    for (const out of [this.child.stdout!, this.child.stderr!]) {
      out.setEncoding("utf8");
      out.on("data", (chunk: string) => this.onStderr(chunk));
    }
    this.exitedPromise = new Promise((done) => {
      this.child.once("exit", (code, signal) => {
        this.exited = { code, signal };
        // the stderr pipe may still hold the traceback: wait for it briefly
        const t = setTimeout(() => this.onExit(done), 500);
        this.child.stderr!.once("close", () => {
          clearTimeout(t);
          this.onExit(done);
        });
      });
      this.child.once("error", (e: NodeJS.ErrnoException) => {
        const why =
          e.code === "ENOENT"
            ? `the Python interpreter ${options.python} was not found; install the worker's environment with \`${INSTALL_COMMAND}\` (or set backend.python / RLLM_PYTHON to an interpreter that has torch, transformers and peft)`
            : `could not start ${options.python}: ${e.message}`;
        this.fail(new Error(why));
        done();
      });
    });
    server.on("connection", (s) => this.onConnection(s));
    // an idle worker never keeps Node running (a pending call's timer does while it runs)
    this.child.unref();
    (this.child.stdout as Partial<Socket>).unref?.();
    (this.child.stderr as Partial<Socket>).unref?.();
    server.unref();
    track(this);
  }

  /** Spawns the worker and waits for its `hello`; a `fatal`, an exit or a timeout is an Error. */
  static async start(options: WorkerStartOptions): Promise<WorkerProcess> {
    if (options.distributed && options.role !== "trainer")
      throw new Error(`only the trainer runs under torchrun, not the ${options.role}`);
    const torchrun = options.distributed && (await TorchrunGroup.create(options.distributed));
    const exchange = makeExchangeDir();
    const server = createServer();
    try {
      await new Promise<void>((ok, err) => {
        server.once("error", err);
        server.listen(join(exchange, "rpc.sock"), () => {
          server.off("error", err);
          ok();
        });
      });
    } catch (e) {
      rmSync(exchange, { recursive: true, force: true });
      throw e;
    }
    const w = new WorkerProcess(options, exchange, server, torchrun);
    try {
      await w.waitForHello();
      return w;
    } catch (e) {
      await w.close();
      throw e;
    }
  }

  private waitForHello(): Promise<void> {
    const { role, startupTimeoutMs } = this.options;
    return new Promise<void>((ok, err) => {
      // several nodes: rank 0 says hello once every node has joined
      const waitingFor = this.torchrun?.startupHint() ?? "";
      const timer = setTimeout(() => {
        this.fail(
          new Error(
            `the torch ${role} worker sent no hello within ${startupTimeoutMs / 1000} s (raise backend.timeouts.startupS${waitingFor})${this.tailNote()}`,
          ),
        );
        this.killGroup("SIGKILL");
      }, startupTimeoutMs);
      this.onHello = (e) => {
        clearTimeout(timer);
        this.onHello = undefined;
        if (e.event === "fatal") {
          const install = typeof e.install === "string" && e.install ? e.install : INSTALL_COMMAND;
          err(
            new Error(
              `the torch ${role} worker cannot run: ${String(e.message)}; install what it needs with \`${install}\``,
            ),
          );
        } else if (e.event === "hello") {
          try {
            const world = this.torchrun?.checkHello(e);
            this.hello = { ...(e as unknown as WorkerHello), ...(world ? { world } : {}) };
            ok();
          } catch (bad) {
            err(bad as Error);
          }
        } else err(e.error as Error);
      };
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Whether the worker can take calls. */
  get alive(): boolean {
    return this.dead === undefined;
  }

  /** The last ~64 KB of the worker's stderr. */
  get stderr(): string {
    return this.stderrTail;
  }

  /** Sends `method` and resolves with its result; see the header for every way it rejects. */
  call(
    method: string,
    params: Record<string, unknown>,
    options: CallOptions,
  ): Promise<Record<string, unknown>> {
    if (this.dead) return Promise.reject(this.dead);
    if (!this.socket)
      return Promise.reject(new Error(`the torch ${this.role} worker is not connected`));
    const id = this.nextId++;
    return new Promise((ok, err) => {
      const timer = setTimeout(() => {
        this.fail(
          new Error(
            `the torch ${this.role} worker did not answer ${method} within ${options.timeoutMs / 1000} s; it was killed (raise backend.timeouts.callS if the call is just slow)${this.tailNote()}`,
          ),
        );
        this.killGroup("SIGKILL");
      }, options.timeoutMs);
      this.pending.set(id, { method, resolve: ok, reject: err, onEvent: options.onEvent, timer });
      this.refWhileBusy();
      this.socket!.write(`${JSON.stringify({ id, method, params })}\n`);
    });
  }

  /** Sends SIGNAL to the worker's process group, and under torchrun to each local rank's. */
  killGroup(signal: NodeJS.Signals): void {
    const pid = this.child.pid;
    if (pid === undefined) return;
    const groups = [pid];
    if (this.torchrun) groups.unshift(...this.torchrun.rankGroups(pid, !this.exited));
    for (const g of groups) {
      try {
        process.kill(-g, signal);
      } catch {
        // ESRCH: the group is gone already
      }
    }
  }

  /** `shutdown` (briefly), then SIGTERM, then SIGKILL to the group; removes the exchange dir. */
  async close(): Promise<void> {
    if (!this.dead && this.socket) {
      await this.call("shutdown", {}, { timeoutMs: 5_000 }).catch(() => undefined);
    }
    this.fail(new Error(`the torch ${this.role} worker is closed`));
    if (!(await this.waitExit(5_000))) {
      this.killGroup("SIGTERM");
      if (!(await this.waitExit(2_000))) this.killGroup("SIGKILL");
    }
    this.killGroup("SIGKILL"); // anything of the group still running
    await this.waitExit(5_000);
    this.socket?.destroy();
    await new Promise<void>((done) => this.server.close(() => done()));
    rmSync(this.exchange, { recursive: true, force: true });
    untrack(this);
  }

  private async waitExit(ms: number): Promise<boolean> {
    if (this.exited || this.child.pid === undefined) return true;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((done) => {
      timer = setTimeout(() => done(false), ms);
    });
    const r = await Promise.race([this.exitedPromise.then(() => true as const), timeout]);
    clearTimeout(timer);
    return r;
  }

  private onConnection(s: Socket): void {
    if (this.socket || this.dead) {
      s.destroy();
      return;
    }
    this.socket = s;
    s.setEncoding("utf8");
    let buf = "";
    s.on("data", (chunk: string) => {
      buf += chunk;
      for (let nl = buf.indexOf("\n"); nl >= 0 && !this.dead; nl = buf.indexOf("\n")) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (line.trim()) this.onLine(line);
      }
    });
    s.on("error", () => undefined); // 'close' follows
    s.on("close", () => {
      // usually the worker is exiting: its exit (code, traceback) is the better reason; torchrun
      // first stops the other ranks and prints its failure summary, which takes longer
      setTimeout(() => {
        if (this.dead) return;
        this.fail(
          new Error(`the torch ${this.role} worker closed its connection${this.tailNote()}`),
        );
        this.killGroup("SIGKILL");
      }, this.torchrun?.endMs ?? 2_000).unref();
    });
    this.refWhileBusy();
  }

  /** The socket holds the event loop while a call is pending, not while idle. */
  private refWhileBusy(): void {
    if (this.pending.size > 0) this.socket?.ref();
    else this.socket?.unref();
  }

  private onLine(line: string): void {
    let msg: unknown;
    try {
      msg = JSON.parse(line);
    } catch {
      this.malformed(`a line that is not JSON: ${line.slice(0, 200)}`);
      return;
    }
    if (typeof msg !== "object" || msg === null || Array.isArray(msg)) {
      this.malformed(`a message that is not an object: ${line.slice(0, 200)}`);
      return;
    }
    const m = msg as Record<string, unknown>;
    if (typeof m.event === "string") {
      this.onEventMessage(m);
      return;
    }
    const p = typeof m.id === "number" ? this.pending.get(m.id) : undefined;
    if (!p) {
      this.malformed(`a reply to no pending call: ${line.slice(0, 200)}`);
      return;
    }
    this.pending.delete(m.id as number);
    clearTimeout(p.timer);
    this.refWhileBusy();
    if (p.eventError) p.reject(p.eventError);
    else if (m.error && typeof m.error === "object") {
      const e = m.error as { type?: unknown; message?: unknown; traceback?: unknown };
      p.reject(
        new WorkerError(
          p.method,
          String(e.type ?? "Error"),
          String(e.message ?? ""),
          typeof e.traceback === "string" ? e.traceback : "",
        ),
      );
    } else if (m.result && typeof m.result === "object" && !Array.isArray(m.result)) {
      p.resolve(m.result as Record<string, unknown>);
    } else {
      p.reject(
        new Error(
          `the torch ${this.role} worker answered ${p.method} with neither a result object nor an error: ${line.slice(0, 200)}`,
        ),
      );
    }
  }

  private onEventMessage(m: Record<string, unknown>): void {
    if (m.event === "hello" || m.event === "fatal") {
      this.onHello?.(m);
      return;
    }
    if (m.event === "log") {
      this.options.log?.(`[torch ${this.role}] ${String(m.message)}`);
      return;
    }
    const p = typeof m.id === "number" ? this.pending.get(m.id) : undefined;
    // a step of a call that just ended is dropped (the reply is the truth)
    if (!p?.onEvent || p.eventError) return;
    try {
      p.onEvent(m);
    } catch (e) {
      // the caller's bug, not the stream's: the call fails with it when the worker answers
      p.eventError = e instanceof Error ? e : new Error(String(e));
    }
  }

  private malformed(what: string): void {
    this.fail(
      new Error(
        `the torch ${this.role} worker sent ${what}; the RPC stream cannot be trusted, the worker was killed`,
      ),
    );
    this.killGroup("SIGKILL");
  }

  private onStderr(chunk: string): void {
    this.stderrTail = (this.stderrTail + chunk).slice(-STDERR_TAIL_BYTES);
    const debug = this.options.debug;
    if (!debug) return;
    const lines = (this.stderrLine + chunk).split("\n");
    this.stderrLine = lines.pop()!;
    for (const l of lines) debug(`[torch ${this.role}] ${l}`);
  }

  private onExit(done: () => void): void {
    const ex = this.exited!;
    const how = ex.signal ? `was killed by ${ex.signal}` : `exited with code ${ex.code}`;
    const failed = this.torchrun?.exitMessage(this.stderrTail, how);
    this.fail(
      new Error(
        failed
          ? `the torch ${this.role}'s ${failed}${this.tailNote()}`
          : `the torch ${this.role} worker ${how}${this.tailNote()}`,
      ),
    );
    done();
  }

  private tailNote(): string {
    const tail = this.stderrTail.trim();
    return tail
      ? `\n--- worker stderr (last lines) ---\n${tail.split("\n").slice(-40).join("\n")}`
      : "";
  }

  /** Marks the worker dead (first reason wins) and rejects every pending call with `e`. */
  private fail(e: Error): void {
    this.dead ??= e;
    const calls = [...this.pending.values()];
    this.pending.clear();
    for (const p of calls) {
      clearTimeout(p.timer);
      const err = e === this.dead ? e : this.dead;
      p.reject(new Error(`${p.method}: ${err.message}`));
    }
    if (this.onHello) this.onHello({ event: "error", error: this.dead });
  }
}
