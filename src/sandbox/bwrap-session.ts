/**
 * One running bwrap sandbox, seen from the host: the NDJSON channel to its init (`bwrap-init.ts`)
 * and the Sandbox protocol over it — exec with streaming, limits and attribution; files; close.
 */
import type { ChildProcess } from "node:child_process";
import type { SandboxCgroup } from "./cgroup.js";
import { attributeLimit, contentBytes, OutputCollector, workPath } from "./spec.js";
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

export interface InitChannel {
  /** The init's pid on the host. */
  readonly pid: number;
  readonly ready: Promise<void>;
  /** Settles when bwrap has exited, with why. */
  readonly ended: Promise<string>;
  send(message: Record<string, unknown>): void;
  listen(id: number, handler: (event: InitEvent) => void): void;
  unlisten(id: number): void;
  /** SIGKILL the init (and so the whole sandbox); resolves when bwrap has exited. */
  kill(): Promise<void>;
}

export class InitChannelImpl implements InitChannel {
  readonly ready: Promise<void>;
  readonly ended: Promise<string>;
  private readonly handlers = new Map<number, (event: InitEvent) => void>();

  constructor(
    private readonly child: ChildProcess,
    readonly pid: number,
    stderr: () => string,
  ) {
    let markReady!: () => void;
    this.ready = new Promise((r) => {
      markReady = r;
    });
    this.ended = new Promise((resolve) => {
      child.once("exit", (code, signal) =>
        resolve(
          `bwrap exited (${signal ?? `code ${code}`})${stderr() ? `: ${stderr().trim()}` : ""}`,
        ),
      );
    });
    let buffered = "";
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      buffered += chunk;
      for (let nl = buffered.indexOf("\n"); nl >= 0; nl = buffered.indexOf("\n")) {
        const event = JSON.parse(buffered.slice(0, nl)) as InitEvent;
        buffered = buffered.slice(nl + 1);
        if (event.ev === "ready") markReady();
        else this.handlers.get(event.id)?.(event);
      }
    });
    child.stdin?.on("error", () => {});
  }

  send(message: Record<string, unknown>): void {
    this.child.stdin?.write(`${JSON.stringify(message)}\n`);
  }

  listen(id: number, handler: (event: InitEvent) => void): void {
    this.handlers.set(id, handler);
  }

  unlisten(id: number): void {
    this.handlers.delete(id);
  }

  async kill(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      try {
        process.kill(this.pid, "SIGKILL");
      } catch {
        // already gone
      }
      this.child.stdin?.end();
      const timer = setTimeout(() => this.child.kill("SIGKILL"), 5000);
      await this.ended;
      clearTimeout(timer);
    }
  }
}

export interface SessionOptions {
  limits: SandboxLimits;
  env: Record<string, string>;
  prlimit: string[];
  cgroup: SandboxCgroup | undefined;
  /** What the work dir starts with, again after each reset(). */
  snapshot: SandboxSnapshot | undefined;
  onClose: () => void;
}

const DEFAULT_TIMEOUT_S = 30;
const DEFAULT_MAX_OUTPUT = 1 << 20;

export class BwrapSession implements Sandbox {
  readonly workdir = "/work";
  private nextId = 1;
  private closed = false;
  private endedWhy: string | null = null;

  constructor(
    readonly id: string,
    private readonly init: InitChannel,
    private readonly options: SessionOptions,
  ) {
    void init.ended.then((why) => {
      this.endedWhy = why;
    });
  }

  async exec(command: string[], o: ExecOptions = {}): Promise<ExecResult> {
    this.check();
    if (
      !Array.isArray(command) ||
      command.length === 0 ||
      command.some((a) => typeof a !== "string")
    ) {
      throw new SandboxError("exec needs a command: a non-empty array of strings (argv)");
    }
    const timeoutS = o.timeoutS ?? DEFAULT_TIMEOUT_S;
    if (!(timeoutS > 0)) throw new SandboxError(`exec timeoutS must be positive, got ${timeoutS}`);
    const id = this.nextId++;
    const started = performance.now();
    const cg = this.options.cgroup;
    const before = cg ? { oom: cg.oomKills(), forks: cg.forksRefused() } : null;
    const out = new OutputCollector(o.maxOutputBytes ?? DEFAULT_MAX_OUTPUT, o.onStdout, o.onStderr);
    let stoppedBy: SandboxLimitName | null = null;
    const stop = (limit: SandboxLimitName) => {
      stoppedBy ??= limit;
      this.init.send({ op: "kill", id });
    };
    const timer = setTimeout(() => stop("timeout"), timeoutS * 1000);
    const onAbort = () => stop("timeout");
    o.signal?.addEventListener("abort", onAbort);
    try {
      const exit = await new Promise<{
        code: number | null;
        signal: string | null;
        cpu: number | null;
      }>((resolve, reject) => {
        this.init.listen(id, (e) => {
          if (e.ev === "out") {
            if (out.add(e.fd, Buffer.from(e.data, "base64"))) stop("output");
          } else if (e.ev === "exit") resolve(e);
          else if (e.ev === "error") reject(new SandboxError(`exec ${command[0]}: ${e.message}`));
        });
        void this.init.ended.then((why) =>
          resolve({ code: null, signal: "SIGKILL", cpu: null, ...{ why } }),
        );
        this.init.send({
          op: "exec",
          id,
          argv: command,
          cwd: o.cwd === undefined ? "." : workPath(o.cwd),
          env: { ...this.options.env, ...o.env },
          stdin: Buffer.from(contentBytes(o.stdin ?? "")).toString("base64"),
          prlimit: this.options.prlimit,
        });
      });
      const stderr =
        out.text(2) +
        (this.endedWhy ? `\n[rllm sandbox: the sandbox ended: ${this.endedWhy}]` : "");
      const cgroupLimit =
        cg && before
          ? cg.oomKills() > before.oom
            ? "memory"
            : cg.forksRefused() > before.forks
              ? "pids"
              : null
          : null;
      return {
        exitCode: exit.code,
        signal: exit.signal,
        stdout: out.text(1),
        stderr,
        stdoutTruncated: out.truncated(1),
        stderrTruncated: out.truncated(2),
        timedOut: stoppedBy === "timeout" && !o.signal?.aborted,
        limit:
          stoppedBy ??
          cgroupLimit ??
          attributeLimit({
            exitCode: exit.code,
            signal: exit.signal,
            stderr,
            cpuSeconds: exit.cpu,
            cpuLimit: this.options.limits.cpuSeconds,
          }),
        wallSeconds: (performance.now() - started) / 1000,
        cpuSeconds: exit.cpu,
      };
    } finally {
      clearTimeout(timer);
      o.signal?.removeEventListener("abort", onAbort);
      this.init.unlisten(id);
    }
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
      await this.call({
        op: "write",
        path,
        data: Buffer.from(contentBytes(f.content)).toString("base64"),
        mode,
      });
    }
  }

  async download(path: string): Promise<Uint8Array> {
    this.check();
    const done = await this.call({ op: "read", path: workPath(path) });
    return Buffer.from(done.data ?? "", "base64");
  }

  async snapshot(): Promise<SandboxSnapshot> {
    this.check();
    const done = await this.call({ op: "list" });
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
    if (this.options.snapshot) await this.upload(this.options.snapshot.files);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.init.kill();
    await this.options.cgroup?.remove();
    this.options.onClose();
  }

  private check(): void {
    if (this.closed) throw new SandboxClosedError(this.id);
    if (this.endedWhy) throw new SandboxError(`sandbox ${this.id} has ended: ${this.endedWhy}`);
  }

  /** One request that answers "done" or "error". */
  private call(request: Record<string, unknown>): Promise<Extract<InitEvent, { ev: "done" }>> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.init.listen(id, (e) => {
        this.init.unlisten(id);
        if (e.ev === "done") resolve(e);
        else if (e.ev === "error")
          reject(new SandboxError(`sandbox ${request.op} ${request.path ?? ""}: ${e.message}`));
      });
      void this.init.ended.then((why) =>
        reject(new SandboxError(`sandbox ${this.id} has ended: ${why}`)),
      );
      this.init.send({ ...request, id });
    });
  }
}
