/**
 * One running bwrap sandbox, seen from the host: the NDJSON channel to its init (`bwrap-init.ts`)
 * and the Sandbox protocol over it — exec with streaming, limits and attribution; files; reset;
 * close.
 *
 * The channel is read as hostile input: a line that is not JSON, an event for no request in
 * flight, or a line over MAX_LINE ends the sandbox (and every request in flight settles, as if the
 * sandbox had been killed). Every request has a deadline of the host's own — an exec its timeout
 * plus KILL_GRACE_S, a file or reset call CALL_DEADLINE_S — past which the sandbox is killed, so no
 * promise waits on an init that stopped answering (SIGSTOP, a blocked read).
 */
import type { ChildProcess } from "node:child_process";
import type { SandboxCgroup } from "./cgroup.js";
import {
  checkExec,
  contentBytes,
  execResult,
  OutputCollector,
  statusOf,
  workPath,
} from "./spec.js";
import {
  type ExecOptions,
  type ExecResult,
  type Sandbox,
  SandboxClosedError,
  SandboxError,
  type SandboxFile,
  type SandboxLimitName,
  type SandboxLimits,
  type SandboxSnapshot,
} from "./types.js";

/** Seconds an exec may outlive its timeout (the kill's round trip) before the sandbox is killed. */
const KILL_GRACE_S = 5;
/** Seconds a file, snapshot or reset call may take before the sandbox is killed. */
const CALL_DEADLINE_S = 120;
/** The longest line the init may send (a download of the largest file allowed, in base64). */
const MAX_LINE = 512 * 2 ** 20;

type InitEvent =
  | { ev: "ready" }
  | { ev: "out"; id: number; fd: 1 | 2; data: string }
  | { ev: "exit"; id: number; code: number | null; signal: string | null; cpu: number | null }
  | {
      ev: "done";
      id: number;
      data?: string;
      files?: { path: string; mode: number; data: string }[];
    }
  | { ev: "error"; id: number; message: string };

/** A request in flight: its events, and what it does when the sandbox ends under it. */
interface Pending {
  onEvent(event: InitEvent): void;
  onEnded(why: string): void;
}

export interface InitChannel {
  /** The sandbox's pid 1 on the host. */
  readonly pid: number;
  readonly ready: Promise<void>;
  /** Why the sandbox ended, once it has (null while it runs). */
  readonly endedWhy: string | null;
  /** Sends a request; `pending` hears its events until `settle(id)`. */
  request(id: number, message: Record<string, unknown>, pending: Pending): void;
  /** Sends a request that has no answer (a kill). */
  notify(message: Record<string, unknown>): void;
  settle(id: number): void;
  /** SIGKILL the sandbox's pid 1 (and so everything in it); resolves when bwrap has exited. */
  kill(why: string): Promise<void>;
}

export class InitChannelImpl implements InitChannel {
  readonly ready: Promise<void>;
  endedWhy: string | null = null;
  private readonly pending = new Map<number, Pending>();
  private readonly exited: Promise<void>;

  constructor(
    private readonly child: ChildProcess,
    readonly pid: number,
    stderr: () => string,
  ) {
    let markReady!: () => void;
    this.ready = new Promise((r) => {
      markReady = r;
    });
    this.exited = new Promise((resolve) => {
      child.once("exit", (code, signal) => {
        this.end(
          `bwrap exited (${signal ?? `code ${code}`})${stderr() ? `: ${stderr().trim()}` : ""}`,
        );
        resolve();
      });
    });
    let buffered: Buffer[] = [];
    let size = 0;
    child.stdout?.on("data", (chunk: Buffer) => {
      let start = 0;
      for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10, start)) {
        buffered.push(chunk.subarray(start, nl));
        const line = Buffer.concat(buffered).toString("utf8");
        buffered = [];
        size = 0;
        start = nl + 1;
        if (!this.dispatch(line, markReady)) return;
      }
      buffered.push(chunk.subarray(start));
      size += chunk.length - start;
      if (size > MAX_LINE) void this.kill(`the sandbox's init sent a line over ${MAX_LINE} bytes`);
    });
    child.stdin?.on("error", () => {});
  }

  /** One line from the init; false when it broke the protocol (the sandbox is being killed). */
  private dispatch(line: string, markReady: () => void): boolean {
    let event: InitEvent;
    try {
      event = JSON.parse(line) as InitEvent;
    } catch {
      void this.kill(`the sandbox's init sent a line that is not JSON: ${line.slice(0, 200)}`);
      return false;
    }
    if (event.ev === "ready") {
      markReady();
      return true;
    }
    const pending = this.pending.get(event.id);
    if (!pending) {
      // An error answering a request it could not parse has no id; anything else is a violation.
      if (event.ev === "error" && event.id === undefined) return true;
      void this.kill(
        `the sandbox's init sent an event for no request in flight: ${line.slice(0, 200)}`,
      );
      return false;
    }
    pending.onEvent(event);
    return true;
  }

  request(id: number, message: Record<string, unknown>, pending: Pending): void {
    if (this.endedWhy) {
      pending.onEnded(this.endedWhy);
      return;
    }
    this.pending.set(id, pending);
    this.child.stdin?.write(`${JSON.stringify({ ...message, id })}\n`);
  }

  notify(message: Record<string, unknown>): void {
    if (!this.endedWhy) this.child.stdin?.write(`${JSON.stringify(message)}\n`);
  }

  settle(id: number): void {
    this.pending.delete(id);
  }

  async kill(why: string): Promise<void> {
    this.end(why);
    if (this.child.exitCode === null && this.child.signalCode === null) {
      try {
        process.kill(this.pid, "SIGKILL");
      } catch {
        // already gone
      }
      this.child.stdin?.end();
      const timer = setTimeout(() => this.child.kill("SIGKILL"), 5000);
      await this.exited;
      clearTimeout(timer);
    }
  }

  /** The sandbox has ended: every request in flight hears why, once. */
  private end(why: string): void {
    if (this.endedWhy) return;
    this.endedWhy = why;
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const p of pending) p.onEnded(why);
  }
}

export interface SessionOptions {
  limits: SandboxLimits;
  env: Record<string, string>;
  prlimit: string[];
  cgroup: SandboxCgroup | undefined;
  /** What the work dir starts with, again after each reset(). */
  snapshot: SandboxSnapshot | undefined;
  /** Dirs of the work dir the spec's links lead to: made at start and again after each reset(). */
  linkDirs: string[];
  onClose: () => void;
}

interface Exit {
  code: number | null;
  signal: string | null;
  cpu: number | null;
}

export class BwrapSession implements Sandbox {
  readonly workdir = "/work";
  private nextId = 1;
  private closed = false;

  constructor(
    readonly id: string,
    private readonly init: InitChannel,
    private readonly options: SessionOptions,
  ) {}

  /** The most a file transfer moves: the work dir's whole size. */
  private get maxTransfer(): number {
    return Math.ceil(this.options.limits.diskMb * 2 ** 20);
  }

  async exec(command: string[], o: ExecOptions = {}): Promise<ExecResult> {
    this.check();
    const { timeoutS, maxOutputBytes } = checkExec(command, o);
    const id = this.nextId++;
    const started = performance.now();
    const cg = this.options.cgroup;
    const before = cg ? { oom: cg.oomKills(), forks: cg.forksRefused() } : null;
    const out = new OutputCollector(maxOutputBytes, o.onStdout, o.onStderr);
    let stoppedBy: SandboxLimitName | null = null;
    let deadline: NodeJS.Timeout | undefined;
    const stop = (limit: SandboxLimitName) => {
      if (stoppedBy) return;
      stoppedBy = limit;
      this.init.notify({ op: "kill", id });
      // An init that does not answer the kill (stopped, stuck) costs the sandbox, not the caller.
      deadline = setTimeout(
        () => void this.init.kill(`exec ${id} outlived its kill by ${KILL_GRACE_S} s`),
        KILL_GRACE_S * 1000,
      );
    };
    const timer = setTimeout(() => stop("timeout"), timeoutS * 1000);
    const onAbort = () => stop("timeout");
    o.signal?.addEventListener("abort", onAbort);
    let exit: Exit;
    try {
      exit = await new Promise<Exit>((resolve, reject) => {
        this.init.request(
          id,
          {
            op: "exec",
            argv: command,
            cwd: o.cwd === undefined ? "." : workPath(o.cwd),
            env: { ...this.options.env, ...o.env },
            stdin: Buffer.from(contentBytes(o.stdin ?? "")).toString("base64"),
            prlimit: this.options.prlimit,
          },
          {
            onEvent: (e) => {
              if (e.ev === "out") {
                if (out.add(e.fd, Buffer.from(e.data, "base64"))) stop("output");
              } else if (e.ev === "exit") resolve(e);
              else if (e.ev === "error")
                reject(new SandboxError(`exec ${command[0]}: ${e.message}`));
            },
            onEnded: () => resolve({ code: null, signal: "SIGKILL", cpu: null }),
          },
        );
        if (o.signal?.aborted) onAbort(); // after the request: the kill must find it
      });
    } finally {
      clearTimeout(timer);
      clearTimeout(deadline);
      o.signal?.removeEventListener("abort", onAbort);
      this.init.settle(id);
    }
    // The shell reports a command killed by signal n as 128 + n; the shell killed itself, as such.
    const status =
      exit.signal !== null ? { exitCode: null, signal: exit.signal } : statusOf(exit.code ?? 0);
    const known =
      cg && before
        ? cg.oomKills() > before.oom
          ? "memory"
          : cg.forksRefused() > before.forks
            ? "pids"
            : null
        : null;
    return execResult(out, status, {
      started,
      stop: stoppedBy,
      timedOut: stoppedBy === "timeout" && !o.signal?.aborted,
      endedBecause: this.init.endedWhy,
      cpuSeconds: exit.cpu,
      cpuLimit: this.options.limits.cpuSeconds,
      known,
    });
  }

  async upload(files: SandboxFile[]): Promise<void> {
    this.check();
    const checked = files.map((f) => ({ path: workPath(f.path), f }));
    for (const { path, f } of checked) {
      const mode = f.mode ?? 0o644;
      if (!Number.isInteger(mode) || mode < 0 || mode > 0o7777) {
        throw new SandboxError(
          `file ${path}: mode must be Unix permission bits (0..0o7777), got ${mode}`,
        );
      }
    }
    for (const { path, f } of checked) {
      const data = Buffer.from(contentBytes(f.content));
      if (data.length > this.maxTransfer) {
        throw new SandboxError(
          `file ${path}: ${data.length} bytes is over the work dir's ${this.maxTransfer}`,
        );
      }
      await this.call({ op: "write", path, data: data.toString("base64"), mode: f.mode ?? 0o644 });
    }
  }

  async download(path: string): Promise<Uint8Array> {
    this.check();
    const done = await this.call({ op: "read", path: workPath(path), max: this.maxTransfer });
    return Buffer.from(done.data ?? "", "base64");
  }

  async snapshot(): Promise<SandboxSnapshot> {
    this.check();
    const done = await this.call({ op: "list", max: this.maxTransfer });
    return {
      files: (done.files ?? []).map((f) => ({
        path: f.path,
        mode: f.mode,
        content: Buffer.from(f.data, "base64"),
      })),
    };
  }

  async reset(): Promise<void> {
    this.check();
    await this.call({ op: "reset" });
    await this.prepare();
  }

  /** The work dir as create() hands it out: the link dirs made, the snapshot written. */
  async prepare(): Promise<void> {
    if (this.options.linkDirs.length)
      await this.call({ op: "mkdir", paths: this.options.linkDirs });
    if (this.options.snapshot) await this.upload(this.options.snapshot.files);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.init.kill("the sandbox was closed");
    await this.options.cgroup?.remove();
    this.options.onClose();
  }

  private check(): void {
    if (this.closed) throw new SandboxClosedError(this.id);
    const why = this.init.endedWhy;
    if (why) throw new SandboxError(`sandbox ${this.id} has ended: ${why}`);
  }

  /** One request that answers "done" or "error", within CALL_DEADLINE_S. */
  private call(request: Record<string, unknown>): Promise<Extract<InitEvent, { ev: "done" }>> {
    const id = this.nextId++;
    const what = `sandbox ${request.op}${request.path ? ` ${request.path}` : ""}`;
    return new Promise((resolve, reject) => {
      const deadline = setTimeout(
        () => void this.init.kill(`${what} took over ${CALL_DEADLINE_S} s`),
        CALL_DEADLINE_S * 1000,
      );
      const done = () => {
        clearTimeout(deadline);
        this.init.settle(id);
      };
      this.init.request(id, request, {
        onEvent: (e) => {
          done();
          if (e.ev === "done") resolve(e);
          else if (e.ev === "error") reject(new SandboxError(`${what}: ${e.message}`));
        },
        onEnded: (why) => {
          done();
          reject(new SandboxError(`sandbox ${this.id} has ended: ${why}`));
        },
      });
    });
  }
}
