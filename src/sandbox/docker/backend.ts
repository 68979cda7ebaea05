/**
 * The docker sandbox backend: one container per sandbox, over the Docker Engine API.
 *
 * A sandbox is a container of the image (spec.image, else sandbox.image) kept alive by `sleep`
 * under Docker's init (HostConfig.Init: reaps what commands leave behind), the root filesystem
 * read-only, every capability dropped, no-new-privileges, and /work and /tmp memory-backed tmpfs
 * mounts. Commands run as execs in it; close() removes it (DELETE ?force=true kills every process
 * first, detached ones included).
 *
 * Limits → the container (each enforced by the kernel, so all six are capabilities):
 *   memoryMb   → HostConfig.Memory (bytes) and MemorySwap = Memory (no swap); the tmpfs files are
 *                charged to it too
 *   cpuSeconds → Ulimits cpu: soft = ceil(cpuSeconds) (SIGXCPU), hard = soft + 1 (SIGKILL)
 *   pids       → HostConfig.PidsLimit
 *   diskMb     → Tmpfs sizes: /tmp a quarter (at least 1 MiB), /work the rest (at least 1 MiB),
 *                so the two together hold diskMb
 *   fileMb     → Ulimits fsize (bytes; SIGXFSZ past it)
 *   openFiles  → Ulimits nofile
 * Network: HostConfig.NetworkMode "bridge" when the spec asks for it (spec.network, else
 * sandbox.network), else "none" (a loopback only) and Config.NetworkDisabled.
 *
 * Decided once:
 * - Files go in and out through `tar`/`cat` run in the container, not the archive routes: the
 *   archive API reads and writes the container's own filesystem under a tmpfs mount, never the
 *   mount (moby/moby#22020; docs "docker container cp", corner cases), and /work is one. The image
 *   needs `sh`, `sleep`, `tar` and `cat`.
 * - Every command runs under `sh -c` wrapper that writes its pid to /tmp/.rllm-exec-<token> and
 *   runs the argv as its child. runc makes each exec's process a session and process-group leader
 *   (libcontainer/nsenter/nsexec.c, stage-2 `setsid()`), so a timeout, an abort or too much output
 *   is a second exec `kill -9 -<pgid>`: the command and everything it started, the sandbox and its
 *   other commands untouched (Docker has no API to kill an exec). A process that made its own
 *   session lives on until close(). A command that cannot start is the shell's 127/126.
 * - The protocol's shared rules are spec.ts's, as on every backend: checkExec (argv, timeoutS,
 *   maxOutputBytes), OutputCollector (what is kept), statusOf (Docker reports a process killed by
 *   signal n as exit code 128+n) and attributeLimit (the limit named). What only Docker knows is
 *   passed to it as `known`: "memory" when a SIGKILLed command's container has State.OOMKilled set
 *   (Docker keeps that flag until the container restarts: after one OOM kill a later SIGKILL reads
 *   as memory too).
 * - A cwd is checked (`test -d`) before the command runs: one that is not a directory is a
 *   SandboxError naming it.
 * - close() while a command runs resolves that exec as killed (SIGKILL, its output so far, stderr
 *   noting the sandbox ended); the backend's own calls (upload, ...) throw SandboxClosedError.
 * - cpuSeconds is null: the Engine API has per-container CPU totals only, not per exec.
 */
import { randomBytes } from "node:crypto";
import { extract, pack } from "tar-stream";
import {
  checkExec,
  contentBytes,
  execResult,
  OutputCollector,
  resolveSpec,
  statusOf,
  workPath,
} from "../spec.js";
import {
  type ExecOptions,
  type ExecResult,
  type Sandbox,
  type SandboxBackend,
  SandboxClosedError,
  SandboxError,
  type SandboxFile,
  type SandboxLimits,
  type SandboxSnapshot,
  type SandboxSpec,
} from "../types.js";
import { DOCKER_CAPABILITIES, type DockerSandboxConfig } from "./config.js";
import { DockerEngine, DockerEngineError } from "./engine.js";

const MiB = 1024 * 1024;
const WORKDIR = "/work";
/** $1 the pid file, $2 the cwd, then the argv. */
const WRAPPER =
  'p=$1; echo $$ > "$p"; cd -- "$2" || exit 1; shift 2; "$@"; s=$?; rm -f -- "$p"; exit $s';
const KILLER = 'kill -9 -"$(cat "$1")" 2>/dev/null; rm -f -- "$1"';
/** The timeout of the backend's own commands (tar, cat). */
const INTERNAL_TIMEOUT_S = 600;
/** What a command's stderr ends with when close() removed the container while it ran. */
export class DockerBackend implements SandboxBackend {
  readonly name = "docker";
  readonly capabilities = DOCKER_CAPABILITIES;
  private readonly live = new Set<DockerSandbox>();

  private constructor(
    readonly engine: DockerEngine,
    /** What GET /version answered (Version, ApiVersion, Os, ...), for logs. */
    readonly daemon: { Version?: string; ApiVersion?: string; Os?: string },
    private readonly config: DockerSandboxConfig,
  ) {}

  /**
   * Pings the daemon at config.socket (under config.apiVersion: a daemon that does not serve it
   * answers 400 naming its range) and reads its version.
   */
  static async start(config: DockerSandboxConfig): Promise<DockerBackend> {
    const engine = new DockerEngine(config.socket, config.apiVersion);
    await engine.request("GET", "/_ping");
    const daemon = await engine.json<DockerBackend["daemon"]>("GET", "/version");
    return new DockerBackend(engine, daemon, config);
  }

  async create(spec: SandboxSpec = {}): Promise<Sandbox> {
    const asked = Object.entries(spec.limits ?? {}).filter(([, v]) => v !== undefined);
    const limits = resolveSpec(this.name, this.capabilities, {
      ...spec,
      limits: { ...this.config.limits, ...Object.fromEntries(asked) }, // the spec's over the config's
    });
    const image = spec.image ?? this.config.image;
    const network = spec.network ?? this.config.network;
    const body = containerBody(image, limits, network, spec.env ?? {});
    const id = await this.createContainer(image, body);
    const sandbox = new DockerSandbox(this.engine, id, () => this.live.delete(sandbox));
    this.live.add(sandbox);
    try {
      await this.engine.request("POST", `/containers/${id}/start`);
      if (spec.snapshot?.files.length) await sandbox.upload(spec.snapshot.files);
    } catch (err) {
      await sandbox.close().catch(() => {});
      throw err;
    }
    return sandbox;
  }

  /** Removes the containers of sandboxes still open, then drops the daemon connections. */
  async close(): Promise<void> {
    await Promise.all([...this.live].map((s) => s.close()));
    this.engine.close();
  }

  private async createContainer(image: string, body: object): Promise<string> {
    const create = () =>
      this.engine.json<{ Id: string }>("POST", "/containers/create", {
        query: { name: `rllm-sandbox-${randomBytes(6).toString("hex")}` },
        json: body,
      });
    try {
      return (await create()).Id;
    } catch (err) {
      if (!(err instanceof DockerEngineError && err.status === 404)) throw err;
      if (this.config.pull === "never") {
        throw new SandboxError(
          `image "${image}" is not on the Docker daemon and sandbox.pull is "never": run \`docker pull ${image}\` first or set sandbox.pull to "missing" (daemon: ${err.daemonMessage})`,
        );
      }
      await this.engine.pull(image);
      return (await create()).Id;
    }
  }
}

/** The POST /containers/create body (see the header for the mapping). */
export function containerBody(
  image: string,
  limits: SandboxLimits,
  network: boolean,
  env: Record<string, string>,
): object {
  const diskKb = Math.floor(limits.diskMb * 1024);
  const tmpKb = Math.max(1024, Math.floor(diskKb / 4));
  const workKb = Math.max(1024, diskKb - tmpKb);
  const cpu = Math.ceil(limits.cpuSeconds);
  const fsize = Math.floor(limits.fileMb * MiB);
  return {
    Image: image,
    Entrypoint: ["sleep"],
    Cmd: ["2147483647"],
    WorkingDir: WORKDIR,
    Env: envList({ HOME: WORKDIR, LANG: "C.UTF-8", ...env }),
    Labels: { "dev.rllm.sandbox": "true" },
    NetworkDisabled: !network,
    HostConfig: {
      Init: true,
      AutoRemove: true,
      NetworkMode: network ? "bridge" : "none",
      Memory: Math.floor(limits.memoryMb * MiB),
      MemorySwap: Math.floor(limits.memoryMb * MiB),
      PidsLimit: limits.pids,
      Ulimits: [
        { Name: "cpu", Soft: cpu, Hard: cpu + 1 },
        { Name: "fsize", Soft: fsize, Hard: fsize },
        { Name: "nofile", Soft: limits.openFiles, Hard: limits.openFiles },
      ],
      Tmpfs: {
        [WORKDIR]: `rw,exec,nosuid,nodev,size=${workKb}k,mode=1777`,
        "/tmp": `rw,exec,nosuid,nodev,size=${tmpKb}k,mode=1777`,
      },
      ReadonlyRootfs: true,
      CapDrop: ["ALL"],
      SecurityOpt: ["no-new-privileges"],
    },
  };
}

function envList(env: Record<string, string>): string[] {
  return Object.entries(env).map(([k, v]) => {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) {
      throw new SandboxError(
        `sandbox environment variable name ${JSON.stringify(k)} is not a valid name`,
      );
    }
    if (typeof v !== "string" || v.includes("\0")) {
      throw new SandboxError(`sandbox environment variable ${k} must be a string without NUL`);
    }
    return `${k}=${v}`;
  });
}

/** How a command ended: its status, and the stop this backend made, if any. */
interface End {
  code: number;
  stop: "timeout" | "abort" | "output" | undefined;
}

export class DockerSandbox implements Sandbox {
  readonly workdir = WORKDIR;
  private closed = false;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly engine: DockerEngine,
    readonly id: string,
    private readonly onClose: () => void,
  ) {}

  async exec(command: string[], o: ExecOptions = {}): Promise<ExecResult> {
    this.check();
    const { timeoutS, maxOutputBytes } = checkExec(command, o);
    const env = envList(o.env ?? {});
    const cwd = o.cwd === undefined ? WORKDIR : `${WORKDIR}/${workPath(o.cwd)}`;
    const out = new OutputCollector(maxOutputBytes, o.onStdout, o.onStderr);
    const started = performance.now();
    let end: End | "closed"; // "closed": close() removed the container meanwhile
    try {
      if (o.cwd !== undefined) await this.checkCwd(cwd, o.cwd);
      end = await this.runOnce(command, { ...o, env, cwd, timeoutS }, out);
    } catch (err) {
      if (!this.closed) throw err;
      end = "closed";
    }
    const closed = end === "closed";
    const stop = end === "closed" ? undefined : end.stop;
    const status = end === "closed" ? { exitCode: null, signal: "SIGKILL" } : statusOf(end.code);
    const oom = !stop && !closed && (await this.oomKilled(status.signal));
    return execResult(out, status, {
      started,
      stop: stop === "abort" ? "timeout" : (stop ?? null),
      timedOut: stop === "timeout",
      endedBecause: closed ? "close() removed its container" : null,
      known: oom ? "memory" : null,
    });
  }

  async upload(files: SandboxFile[]): Promise<void> {
    this.check();
    const archive = pack();
    for (const f of files) {
      archive.entry(
        { name: workPath(f.path), mode: f.mode ?? 0o644, type: "file" },
        contentBytes(f.content),
      );
    }
    archive.finalize();
    const chunks: Buffer[] = [];
    for await (const c of archive) chunks.push(c as Buffer);
    await this.internal(["tar", "-x", "-f", "-", "-C", WORKDIR], Buffer.concat(chunks), "upload");
  }

  async download(path: string): Promise<Uint8Array> {
    this.check();
    const p = workPath(path);
    return this.internal(
      ["cat", "--", `${WORKDIR}/${p}`],
      undefined,
      `download ${JSON.stringify(p)}`,
    );
  }

  async snapshot(): Promise<SandboxSnapshot> {
    this.check();
    const tarball = await this.internal(
      ["tar", "-c", "-f", "-", "-C", WORKDIR, "."],
      undefined,
      "snapshot",
    );
    const files: SandboxFile[] = [];
    const contents = new Map<string, Buffer>(); // hard links name an earlier entry
    const reader = extract();
    reader.end(tarball);
    for await (const entry of reader) {
      const chunks: Buffer[] = [];
      for await (const c of entry) chunks.push(c as Buffer);
      const { type, mode } = entry.header;
      const name = relative(entry.header.name);
      if (!name || (type !== "file" && type !== "link")) continue;
      const content =
        type === "link" ? contents.get(relative(entry.header.linkname)) : Buffer.concat(chunks);
      if (!content) continue;
      contents.set(name, content);
      files.push({ path: name, content: new Uint8Array(content), mode: mode & 0o7777 });
    }
    files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return { files };
  }

  /** Removes the container; a second call waits for the first's removal and sends nothing. */
  close(): Promise<void> {
    this.closed = true;
    this.closing ??= this.remove().finally(this.onClose);
    return this.closing;
  }

  private async remove(): Promise<void> {
    try {
      await this.engine.request("DELETE", `/containers/${this.id}`, { query: { force: "true" } });
    } catch (err) {
      // 404: already gone (AutoRemove); 409: its removal is already under way.
      if (!(err instanceof DockerEngineError && (err.status === 404 || err.status === 409))) {
        throw err;
      }
    }
  }

  private check(): void {
    if (this.closed) throw new SandboxClosedError(this.id);
  }

  /** The protocol's error for a cwd that is not a directory, before the command runs. */
  private async checkCwd(path: string, asked: string): Promise<void> {
    const r = await this.internalRun(["test", "-d", path], undefined);
    if (r.code !== 0) {
      throw new SandboxError(`cwd ${asked} is not a directory in the sandbox's work dir`);
    }
  }

  /** One of the backend's own commands: its stdout, or an error naming `what` with its stderr. */
  private async internal(cmd: string[], stdin: Buffer | undefined, what: string): Promise<Buffer> {
    const r = await this.internalRun(cmd, stdin);
    if (r.code !== 0) {
      const why = r.out.text(2).trim() || `exit ${r.code}`;
      throw new SandboxError(`sandbox ${this.id}: ${what} failed: ${why}`);
    }
    return r.out.bytes(1);
  }

  /** A backend's command, its output kept whole; a failure because close() came meanwhile is SandboxClosedError. */
  private async internalRun(
    cmd: string[],
    stdin: Buffer | undefined,
    timeoutS = INTERNAL_TIMEOUT_S,
  ): Promise<{ code: number; out: OutputCollector }> {
    const out = new OutputCollector(Number.POSITIVE_INFINITY);
    try {
      const end = await this.runOnce(cmd, { stdin, env: [], cwd: WORKDIR, timeoutS }, out);
      return { code: end.code, out };
    } catch (err) {
      if (this.closed) throw new SandboxClosedError(this.id);
      throw err;
    }
  }

  /** One command in the wrapper, its output into `out`, stopped on a timeout, an abort or too much output. */
  private async runOnce(
    command: string[],
    o: {
      stdin?: Uint8Array | string;
      env: string[];
      cwd: string;
      timeoutS: number;
      signal?: AbortSignal;
    },
    out: OutputCollector,
  ): Promise<End> {
    const pidFile = `/tmp/.rllm-exec-${randomBytes(8).toString("hex")}`;
    const { Id: execId } = await this.engine.json<{ Id: string }>(
      "POST",
      `/containers/${this.id}/exec`,
      {
        json: {
          AttachStdin: o.stdin !== undefined,
          AttachStdout: true,
          AttachStderr: true,
          Tty: false,
          Cmd: ["sh", "-c", WRAPPER, "sh", pidFile, o.cwd, ...command],
          Env: o.env,
          WorkingDir: WORKDIR,
        },
      },
    );
    const end: { stop?: End["stop"]; killing?: Promise<void> } = {};
    const kill = (why: NonNullable<End["stop"]>) => {
      end.stop ??= why;
      end.killing ??= this.killExec(pidFile, finished, stream.abort);
    };
    const stream = this.engine.startExec(
      execId,
      o.stdin === undefined ? undefined : contentBytes(o.stdin),
      (n, payload) => {
        if ((n === 1 || n === 2) && out.add(n, payload)) kill("output");
      },
    );
    const finished = stream.done.then(() => this.exitCode(execId));
    const timer = setTimeout(() => kill("timeout"), o.timeoutS * 1000);
    const onAbort = () => kill("abort");
    if (o.signal?.aborted) onAbort();
    o.signal?.addEventListener("abort", onAbort);
    try {
      const code = await finished;
      await end.killing;
      return { code, stop: end.stop };
    } finally {
      clearTimeout(timer);
      o.signal?.removeEventListener("abort", onAbort);
    }
  }

  /** The exec's exit code once it is no longer running (its output can close before it exits). */
  private async exitCode(execId: string): Promise<number> {
    for (;;) {
      const info = await this.engine.json<{ Running: boolean; ExitCode: number | null }>(
        "GET",
        `/exec/${execId}/json`,
      );
      if (!info.Running) return info.ExitCode ?? -1;
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /**
   * kill -9 the command's process group, again every 500 ms while it has not finished (its pid file
   * may not be written yet); after 10 tries the connection is dropped (a process that made its own
   * session can hold the output open until close()).
   */
  private async killExec(
    pidFile: string,
    finished: Promise<unknown>,
    abort: () => void,
  ): Promise<void> {
    let ended = false;
    finished.then(
      () => (ended = true),
      () => (ended = true),
    );
    for (let i = 0; i < 10 && !ended && !this.closed; i++) {
      await this.internalRun(["sh", "-c", KILLER, "sh", pidFile], undefined, 10).catch(() => {});
      await Promise.race([finished.catch(() => {}), new Promise((r) => setTimeout(r, 500))]);
    }
    if (!ended) abort();
  }

  /** Whether a SIGKILL was the memory limit's: the container's State.OOMKilled (see the header). */
  private async oomKilled(signal: string | null): Promise<boolean> {
    if (signal !== "SIGKILL") return false;
    try {
      const info = await this.engine.json<{ State?: { OOMKilled?: boolean } }>(
        "GET",
        `/containers/${this.id}/json`,
      );
      return info.State?.OOMKilled === true;
    } catch (err) {
      if (this.closed) return false; // removed meanwhile
      throw err;
    }
  }
}

/** A name in `tar -C /work .`'s output, relative to the work dir ("" for the dir itself). */
function relative(name: string): string {
  return name.replace(/^\.\//, "").replace(/\/$/, "").replace(/^\.$/, "");
}
