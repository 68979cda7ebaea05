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
 * - Docker reports a process killed by signal n as exit code 128+n; codes 129..159 are read as that
 *   signal (exitCode null), as a shell does.
 * - Limit attribution: SIGXCPU → "cpu"; SIGXFSZ, or stderr's "No space left on device"/"File too
 *   large" → "disk"; SIGKILL while the container's State.OOMKilled is set → "memory" (Docker keeps
 *   that flag until the container restarts: after one OOM kill a later SIGKILL reads as memory
 *   too); a fork refused (stderr's "Cannot fork", or "fork" with "Resource temporarily
 *   unavailable") → "pids"; a failed command only (exit code not 0).
 * - cpuSeconds is null: the Engine API has per-container CPU totals only, not per exec.
 */
import { randomBytes } from "node:crypto";
import { constants } from "node:os";
import { extract, pack } from "tar-stream";
import { contentBytes, resolveSpec, workPath } from "../spec.js";
import {
  type ExecOptions,
  type ExecResult,
  type Sandbox,
  type SandboxBackend,
  SandboxClosedError,
  SandboxError,
  type SandboxFile,
  type SandboxLimitName,
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

interface RawResult {
  exitCode: number | null;
  signal: string | null;
  stdout: Buffer;
  stderr: Buffer;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
  limit: SandboxLimitName | null;
  timedOut: boolean;
  wallSeconds: number;
}

const SIGNAL_NAMES = new Map<number, string>(
  Object.entries(constants.signals).map(([name, n]) => [n, name]),
);

export class DockerSandbox implements Sandbox {
  readonly workdir = WORKDIR;
  private closed = false;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly engine: DockerEngine,
    readonly id: string,
    private readonly onClose: () => void,
  ) {}

  async exec(command: string[], options: ExecOptions = {}): Promise<ExecResult> {
    this.check();
    if (
      !Array.isArray(command) ||
      command.length === 0 ||
      command.some((a) => typeof a !== "string")
    ) {
      throw new SandboxError(
        'exec takes a non-empty argv of strings (use ["sh", "-c", line] for a shell line)',
      );
    }
    const raw = await this.run(command, options);
    return {
      ...raw,
      stdout: raw.stdout.toString("utf8"),
      stderr: raw.stderr.toString("utf8"),
      cpuSeconds: null,
    };
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

  /** One of the backend's own commands: its stdout, or an error naming `what` with its stderr. */
  private async internal(cmd: string[], stdin: Buffer | undefined, what: string): Promise<Buffer> {
    const r = await this.run(cmd, {
      stdin,
      timeoutS: INTERNAL_TIMEOUT_S,
      maxOutputBytes: Number.POSITIVE_INFINITY,
    });
    if (r.exitCode !== 0) {
      const why = r.stderr.toString("utf8").trim() || `exit ${r.exitCode ?? r.signal}`;
      throw new SandboxError(`sandbox ${this.id}: ${what} failed: ${why}`);
    }
    return r.stdout;
  }

  /** One command; a failure because close() came meanwhile is SandboxClosedError. */
  private async run(command: string[], o: ExecOptions): Promise<RawResult> {
    try {
      return await this.runOnce(command, o);
    } catch (err) {
      if (this.closed) throw new SandboxClosedError(this.id);
      throw err;
    }
  }

  private async runOnce(command: string[], o: ExecOptions): Promise<RawResult> {
    checkOptions(o);
    const started = performance.now();
    const cwd = o.cwd === undefined ? WORKDIR : `${WORKDIR}/${workPath(o.cwd)}`;
    const pidFile = `/tmp/.rllm-exec-${randomBytes(8).toString("hex")}`;
    const max = o.maxOutputBytes ?? MiB;
    const { Id: execId } = await this.engine.json<{ Id: string }>(
      "POST",
      `/containers/${this.id}/exec`,
      {
        json: {
          AttachStdin: o.stdin !== undefined,
          AttachStdout: true,
          AttachStderr: true,
          Tty: false,
          Cmd: ["sh", "-c", WRAPPER, "sh", pidFile, cwd, ...command],
          Env: envList(o.env ?? {}),
          WorkingDir: WORKDIR,
        },
      },
    );
    const out = { 1: new Capture(max, o.onStdout), 2: new Capture(max, o.onStderr) };
    const end: { stop?: "timeout" | "abort" | "output"; killing?: Promise<void> } = {};
    const kill = (why: "timeout" | "abort" | "output") => {
      end.stop ??= why;
      end.killing ??= this.killExec(pidFile, finished, stream.abort);
    };
    const stream = this.engine.startExec(
      execId,
      o.stdin === undefined ? undefined : contentBytes(o.stdin),
      (n, payload) => {
        const c = n === 1 ? out[1] : n === 2 ? out[2] : undefined;
        if (c?.push(payload)) kill("output");
      },
    );
    const finished = stream.done.then(() => this.exitCode(execId));
    const timer = setTimeout(() => kill("timeout"), (o.timeoutS ?? 30) * 1000);
    const onAbort = () => kill("abort");
    if (o.signal?.aborted) onAbort();
    o.signal?.addEventListener("abort", onAbort);
    let code: number;
    try {
      code = await finished;
      await end.killing;
    } finally {
      clearTimeout(timer);
      o.signal?.removeEventListener("abort", onAbort);
    }
    const stop = end.stop;
    const signal = code > 128 && code < 160 ? (SIGNAL_NAMES.get(code - 128) ?? null) : null;
    const raw: RawResult = {
      exitCode: signal ? null : code,
      signal,
      stdout: out[1].bytes(),
      stderr: out[2].bytes(),
      stdoutTruncated: out[1].truncated,
      stderrTruncated: out[2].truncated,
      limit: null,
      timedOut: stop === "timeout",
      wallSeconds: (performance.now() - started) / 1000,
    };
    raw.limit = stop === "abort" ? "timeout" : (stop ?? (await this.attribute(raw)));
    return raw;
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
      await this.run(["sh", "-c", KILLER, "sh", pidFile], { timeoutS: 10 }).catch(() => {});
      await Promise.race([finished.catch(() => {}), new Promise((r) => setTimeout(r, 500))]);
    }
    if (!ended) abort();
  }

  private async attribute(r: RawResult): Promise<SandboxLimitName | null> {
    if (r.signal === "SIGXCPU") return "cpu";
    if (r.signal === "SIGXFSZ") return "disk";
    if (r.signal === "SIGKILL") {
      const info = await this.engine.json<{ State?: { OOMKilled?: boolean } }>(
        "GET",
        `/containers/${this.id}/json`,
      );
      if (info.State?.OOMKilled) return "memory";
    }
    if (r.exitCode === 0) return null;
    const err = r.stderr.toString("utf8");
    if (/No space left on device|File too large/.test(err)) return "disk";
    if (/\b(Cannot|can't) fork\b/i.test(err)) return "pids"; // dash, busybox
    if (/fork/i.test(err) && /Resource temporarily unavailable/.test(err)) return "pids"; // bash, Python
    return null;
  }
}

/** A name in `tar -C /work .`'s output, relative to the work dir ("" for the dir itself). */
function relative(name: string): string {
  return name.replace(/^\.\//, "").replace(/\/$/, "").replace(/^\.$/, "");
}

function checkOptions(o: ExecOptions): void {
  if (o.timeoutS !== undefined && !(o.timeoutS > 0)) {
    throw new SandboxError(`exec timeoutS must be a positive number of seconds, got ${o.timeoutS}`);
  }
  if (o.maxOutputBytes !== undefined && !(o.maxOutputBytes >= 0)) {
    throw new SandboxError(`exec maxOutputBytes must be a number >= 0, got ${o.maxOutputBytes}`);
  }
}

/** One output stream: kept up to `max` bytes; push() says whether it just went over. */
class Capture {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  truncated = false;

  constructor(
    private readonly max: number,
    private readonly onChunk?: (chunk: Uint8Array) => void,
  ) {}

  push(chunk: Buffer): boolean {
    this.onChunk?.(new Uint8Array(chunk));
    const room = this.max - this.size;
    if (chunk.length <= room) {
      this.chunks.push(Buffer.from(chunk));
      this.size += chunk.length;
      return false;
    }
    if (room > 0) this.chunks.push(Buffer.from(chunk.subarray(0, room)));
    this.size = this.max;
    const first = !this.truncated;
    this.truncated = true;
    return first;
  }

  bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }
}
