/**
 * The Daytona sandbox backend: each sandbox a Daytona sandbox, driven over its REST API (the API
 * for the sandbox's life, its toolbox for commands and files). The contract, with its sources, is
 * in the header of src/testing/fake-sandbox-services/daytona.ts, which the tests run this against.
 *
 *   create  POST {apiUrl}/sandbox {name, buildInfo: {dockerfileContent: "FROM <image>\n"}, env,
 *           memory, disk, networkBlockAll, autoStopInterval, autoDeleteInterval: 0, target, labels},
 *           GET {apiUrl}/sandbox/{id} until state "started", then the toolbox at
 *           {toolboxProxyUrl}/{id} makes $HOME/work, the work dir; the snapshot is uploaded into it
 *   exec    POST {toolbox}/process/execute {command: the script of ./shell.ts, timeout, cwd, envs}
 *   files   POST {toolbox}/files/upload?path= (multipart "file"), POST /files/permissions?path=&mode=,
 *           GET {toolbox}/files/download?path=
 *   close   DELETE {apiUrl}/sandbox/{id} (404: already gone)
 *
 * What Daytona gives and what this backend makes of it, decided once:
 * - Limits enforced: memoryMb and diskMb as the sandbox's memory and disk, in whole GiB rounded up
 *   (the disk holds the image too); cpuSeconds, fileMb, openFiles as ulimits of each command.
 *   pids: Daytona has no process limit; asking for it is refused at create. A command the memory
 *   limit kills ends with SIGKILL and limit null unless its stderr names a refused allocation
 *   (nothing else tells that kill from another).
 * - The protocol's shared rules are spec.ts's, as on every backend: checkExec (argv, timeoutS,
 *   maxOutputBytes), OutputCollector (what is kept), statusOf (the shell's 128+n) and
 *   attributeLimit (the limit named), after the stops this backend made itself ("timeout",
 *   "output").
 * - A cwd that is not a directory is a SandboxError naming it; the command does not run.
 * - close() while a command runs resolves that exec as killed (SIGKILL, stderr noting the sandbox
 *   ended; its output went with the sandbox).
 * - The config's limits and network are the defaults of every spec (a spec's own keys win).
 * - Network off (the default) is `networkBlockAll: true`.
 * - The image needs sh and GNU coreutils and findutils (see ./shell.ts): any Debian or Ubuntu one.
 * - Output: the API answers once the command ended, so onStdout/onStderr get the kept output once,
 *   at the end; stdout and stderr are kept apart by the script (the API would merge them).
 * - stdin: the API has none; the bytes are uploaded to a file the command reads.
 * - timeout: Daytona's own (whole seconds, rounded up), which SIGKILLs the command's process group;
 *   the output written until then is collected by a second request. An abort kills that group
 *   with a request of its own. cpuSeconds: null (not measured).
 * - wallSeconds is measured here, network round trips included.
 * - Retries: see ./http.ts. A create is retried safely: the sandbox has a unique name, and a retry
 *   answered 409 (the first attempt did create it) fetches that sandbox.
 * - A sandbox left behind by a crashed run stops after autoStopMinutes idle and is then deleted
 *   (autoDeleteInterval 0). A single command running longer than that may count as idle.
 */
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
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
import { DAYTONA_CAPABILITIES, type DaytonaSandboxConfig } from "./config.js";
import { ServiceClient } from "./http.js";
import {
  type Collected,
  collectScript,
  cwdMissing,
  hasResult,
  killScript,
  parseCollected,
  runScript,
  shQuote,
} from "./shell.js";

const ENV_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/; // the toolbox's ValidateEnvKeys
const POLL_MS = 500;
/** What a command's stderr ends with when close() deleted the sandbox while it ran. */
/** What one command left: its collected result, and what stopped it. */
interface Run {
  c: Collected;
  timedOut: boolean;
  aborted: boolean;
  /** close() came while it ran: its output went with the sandbox. */
  closed: boolean;
}

const NOT_RUN: Run = {
  c: { status: null, cut: false, stdout: new Uint8Array(0), stderr: new Uint8Array(0) },
  timedOut: false,
  aborted: false,
  closed: false,
};

/** What the API answers for a sandbox (the fields this backend reads). */
interface SandboxDto {
  id: string;
  state?: string;
  errorReason?: string;
  toolboxProxyUrl: string;
}

export class DaytonaBackend implements SandboxBackend {
  readonly name = "daytona";
  readonly capabilities = DAYTONA_CAPABILITIES;
  private readonly open = new Set<DaytonaSandbox>();

  private constructor(
    private readonly config: DaytonaSandboxConfig,
    readonly api: ServiceClient,
    private readonly apiUrl: string,
  ) {}

  static start(config: DaytonaSandboxConfig): DaytonaBackend {
    const apiKey = config.apiKey ?? process.env.DAYTONA_API_KEY;
    if (!apiKey) {
      throw new SandboxError(
        "the daytona sandbox backend needs an API key: set sandbox.apiKey in the config or DAYTONA_API_KEY in the environment (create one at https://app.daytona.io/dashboard/keys)",
      );
    }
    const headers: Record<string, string> = { authorization: `Bearer ${apiKey}` };
    if (config.organizationId) headers["x-daytona-organization-id"] = config.organizationId;
    const api = new ServiceClient("daytona", headers, (status) =>
      status === 401
        ? `the API key was refused: check sandbox.apiKey or DAYTONA_API_KEY${config.apiKey ? " (sandbox.apiKey is set)" : ""}`
        : status === 403
          ? "the API key lacks a permission this needs (sandboxes: write, delete), or sandbox.organizationId is not its organization"
          : "",
    );
    return new DaytonaBackend(config, api, config.apiUrl.replace(/\/+$/, ""));
  }

  async create(spec: SandboxSpec = {}): Promise<Sandbox> {
    const network = spec.network ?? this.config.network;
    const merged: SandboxSpec = {
      ...spec,
      network,
      limits: { ...this.config.limits, ...spec.limits },
    };
    const limits = resolveSpec(this.name, this.capabilities, merged);
    for (const key of Object.keys(spec.env ?? {})) checkEnvKey(key, "spec.env");
    const dto = await this.createSandbox(this.createBody(merged, limits, network));
    let sandbox: DaytonaSandbox;
    try {
      const started = await this.waitStarted(dto);
      sandbox = await DaytonaSandbox.open(this, started, limits, (s) => this.open.delete(s));
      if (spec.snapshot) await sandbox.upload(spec.snapshot.files);
    } catch (err) {
      await this.deleteSandbox(dto.id).catch(() => {});
      throw err;
    }
    this.open.add(sandbox);
    return sandbox;
  }

  async close(): Promise<void> {
    await Promise.all([...this.open].map((s) => s.close()));
  }

  /** The body of POST /sandbox (the API's CreateSandbox). */
  private createBody(
    spec: SandboxSpec,
    limits: SandboxLimits,
    network: boolean,
  ): Record<string, unknown> {
    const image = spec.image ?? this.config.image;
    if (!image || /\s/.test(image)) {
      throw new SandboxError(
        `daytona: image ${JSON.stringify(image)} is not an image reference (it becomes "FROM <image>" of a Dockerfile; no spaces or newlines)`,
      );
    }
    const body: Record<string, unknown> = {
      name: `rllm-${randomUUID()}`,
      buildInfo: { dockerfileContent: `FROM ${image}\n` },
      env: spec.env ?? {},
      labels: { "rllm.sandbox": "true" },
      memory: Math.ceil(limits.memoryMb / 1024),
      disk: Math.ceil(limits.diskMb / 1024),
      networkBlockAll: !network,
      autoStopInterval: this.config.autoStopMinutes,
      autoDeleteInterval: 0,
    };
    if (this.config.target) body.target = this.config.target;
    return body;
  }

  private async createSandbox(body: Record<string, unknown>): Promise<SandboxDto> {
    const res = await this.api.request({
      method: "POST",
      url: `${this.apiUrl}/sandbox`,
      json: body,
      accept: [409],
      what: "create a sandbox",
    });
    if (res.status !== 409) return res.json<SandboxDto>();
    // A retried create whose first attempt went through: the sandbox exists under its name.
    return this.getSandbox(String(body.name));
  }

  private async getSandbox(idOrName: string): Promise<SandboxDto> {
    const res = await this.api.request({
      method: "GET",
      url: `${this.apiUrl}/sandbox/${encodeURIComponent(idOrName)}`,
      what: `read sandbox ${idOrName}`,
    });
    return res.json<SandboxDto>();
  }

  private async waitStarted(first: SandboxDto): Promise<SandboxDto> {
    const deadline = Date.now() + this.config.startTimeoutS * 1000;
    let dto = first;
    while (dto.state !== "started") {
      if (dto.state === "error" || dto.state === "build_failed") {
        throw new SandboxError(
          `daytona: sandbox ${dto.id} failed to start (state ${dto.state}): ${dto.errorReason ?? "no reason given"}`,
        );
      }
      if (Date.now() > deadline) {
        throw new SandboxError(
          `daytona: sandbox ${dto.id} did not start within startTimeoutS=${this.config.startTimeoutS}s (state ${dto.state}); raise sandbox.startTimeoutS (an image's first build takes minutes)`,
        );
      }
      await sleep(POLL_MS);
      dto = await this.getSandbox(dto.id);
    }
    return dto;
  }

  async deleteSandbox(id: string): Promise<void> {
    await this.api.request({
      method: "DELETE",
      url: `${this.apiUrl}/sandbox/${encodeURIComponent(id)}`,
      accept: [404],
      what: `delete sandbox ${id}`,
    });
  }
}

function checkEnvKey(key: string, where: string): void {
  if (!ENV_KEY.test(key)) {
    throw new SandboxError(
      `${where}: environment variable name ${JSON.stringify(key)} is invalid for daytona (letters, digits, _; not starting with a digit)`,
    );
  }
}

class DaytonaSandbox implements Sandbox {
  private closed = false;
  private execs = 0;

  private constructor(
    private readonly backend: DaytonaBackend,
    readonly id: string,
    private readonly toolbox: string,
    private readonly home: string,
    readonly workdir: string,
    private readonly limits: SandboxLimits,
    private readonly onClose: (s: DaytonaSandbox) => void,
  ) {}

  /** Make the work dir ($HOME/work) of a started sandbox. */
  static async open(
    backend: DaytonaBackend,
    dto: SandboxDto,
    limits: SandboxLimits,
    onClose: (s: DaytonaSandbox) => void,
  ): Promise<DaytonaSandbox> {
    const toolbox = `${dto.toolboxProxyUrl.replace(/\/+$/, "")}/${encodeURIComponent(dto.id)}`;
    const res = await execute(backend.api, toolbox, {
      command: `mkdir -p "$HOME/work" && cd "$HOME/work" && printf '%s\\n%s\\n' "$HOME" "$(pwd -P)"`,
      timeout: 60,
    });
    const [home, workdir] = res.result.split("\n");
    if (res.exitCode !== 0 || !home?.startsWith("/") || !workdir?.startsWith("/")) {
      throw new SandboxError(
        `daytona: cannot make the work dir $HOME/work in sandbox ${dto.id} (exit ${res.exitCode}): ${res.result.trim()}`,
      );
    }
    return new DaytonaSandbox(backend, dto.id, toolbox, home, workdir, limits, onClose);
  }

  async exec(command: string[], o: ExecOptions = {}): Promise<ExecResult> {
    this.check();
    const { timeoutS, maxOutputBytes } = checkExec(command, o);
    for (const key of Object.keys(o.env ?? {})) checkEnvKey(key, "exec env");
    const cwd = o.cwd === undefined ? this.workdir : `${this.workdir}/${workPath(o.cwd)}`;
    const started = performance.now();
    const out = new OutputCollector(maxOutputBytes, o.onStdout, o.onStderr);
    let run: Run;
    try {
      run = o.signal?.aborted
        ? { ...NOT_RUN, aborted: true }
        : await this.run(command, o, { cwd, timeoutS, maxOutputBytes });
    } catch (err) {
      if (!this.closed) throw err;
      run = { ...NOT_RUN, closed: true };
    }
    const { c } = run;
    out.add(1, c.stdout);
    out.add(2, c.stderr);
    const killed = run.timedOut || run.aborted || run.closed || c.status === null;
    const status = killed ? { exitCode: null, signal: "SIGKILL" } : statusOf(c.status as number);
    const stop = run.timedOut || run.aborted ? "timeout" : c.cut ? "output" : null;
    return execResult(out, status, {
      started,
      stop,
      timedOut: run.timedOut,
      endedBecause: run.closed ? "close() deleted it" : null,
    });
  }

  /** The command through runScript, and what it left collected. */
  private async run(
    command: string[],
    o: ExecOptions,
    r: { cwd: string; timeoutS: number; maxOutputBytes: number },
  ): Promise<Run> {
    const dir = `${this.home}/.rllm-exec/${++this.execs}`;
    if (o.stdin !== undefined) await this.putFile(`${dir}/stdin`, contentBytes(o.stdin));
    let aborted = false;
    const abort = () => {
      aborted = true;
      void execute(this.backend.api, this.toolbox, { command: killScript(dir), timeout: 30 }).catch(
        () => {},
      );
    };
    o.signal?.addEventListener("abort", abort, { once: true });
    let res: Awaited<ReturnType<typeof execute>>;
    try {
      res = await execute(this.backend.api, this.toolbox, {
        command: runScript({
          dir,
          argv: command,
          cwd: r.cwd,
          stdin: o.stdin !== undefined,
          maxOutputBytes: r.maxOutputBytes,
          ulimits: {
            cpuSeconds: this.limits.cpuSeconds,
            fileMb: this.limits.fileMb,
            openFiles: this.limits.openFiles,
          },
        }),
        timeout: Math.max(1, Math.ceil(r.timeoutS)),
        cwd: this.workdir,
        envs: o.env,
      });
    } finally {
      o.signal?.removeEventListener("abort", abort);
    }
    if (cwdMissing(res.result)) {
      throw new SandboxError(`cwd ${o.cwd} is not a directory in the sandbox's work dir`);
    }
    // Killed before it printed the result (timeout, abort, an output cap): collect it apart.
    const text = hasResult(res.result)
      ? res.result
      : (
          await execute(this.backend.api, this.toolbox, {
            command: collectScript(dir),
            timeout: 60,
          })
        ).result;
    const c = parseCollected(text);
    if (c.status === null && !c.cut && !res.timedOut && !aborted) {
      throw new SandboxError(
        `daytona: the command ended without a result in sandbox ${this.id} (toolbox exit ${res.exitCode}): ${res.result.trim().slice(0, 500)}`,
      );
    }
    return { c, timedOut: res.timedOut, aborted, closed: false };
  }

  async upload(files: SandboxFile[]): Promise<void> {
    this.check();
    const checked = files.map((f) => {
      const mode = f.mode ?? 0o644;
      if (!Number.isInteger(mode) || mode < 0 || mode > 0o7777) {
        throw new SandboxError(
          `file ${JSON.stringify(f.path)}: mode must be Unix permission bits (0 to 0o7777), got ${f.mode}`,
        );
      }
      return { path: workPath(f.path), content: f.content, mode };
    });
    for (const f of checked) {
      const target = `${this.workdir}/${f.path}`;
      await this.putFile(target, contentBytes(f.content));
      const mode = f.mode;
      await this.backend.api.request({
        method: "POST",
        url: `${this.toolbox}/files/permissions`,
        query: { path: target, mode: mode.toString(8).padStart(4, "0") },
        what: `set the mode of ${f.path} in sandbox ${this.id}`,
      });
    }
  }

  private async putFile(target: string, bytes: Uint8Array): Promise<void> {
    const form = new FormData();
    form.set("file", new Blob([bytes]), target.slice(target.lastIndexOf("/") + 1));
    await this.backend.api.request({
      method: "POST",
      url: `${this.toolbox}/files/upload`,
      query: { path: target },
      body: form,
      what: `upload ${target} to sandbox ${this.id}`,
    });
  }

  async download(path: string): Promise<Uint8Array> {
    this.check();
    const rel = workPath(path);
    const res = await this.backend.api.request({
      method: "GET",
      url: `${this.toolbox}/files/download`,
      query: { path: `${this.workdir}/${rel}` },
      accept: [404],
      what: `download ${rel} from sandbox ${this.id}`,
    });
    if (res.status === 404) {
      throw new SandboxError(
        `no file ${JSON.stringify(rel)} in the work dir of sandbox ${this.id}`,
      );
    }
    return res.bytes;
  }

  async snapshot(): Promise<SandboxSnapshot> {
    this.check();
    const res = await execute(this.backend.api, this.toolbox, {
      command: `cd ${shQuote(this.workdir)} && find . -type f -printf '%m %P\\0' 2>/dev/null`,
      timeout: 60,
    });
    if (res.exitCode !== 0) {
      throw new SandboxError(
        `daytona: cannot list the work dir of sandbox ${this.id} (exit ${res.exitCode}): ${res.result.trim().slice(0, 500)}`,
      );
    }
    const entries = res.result
      .split("\0")
      .filter(Boolean)
      .map((e) => ({
        mode: Number.parseInt(e.slice(0, e.indexOf(" ")), 8),
        path: e.slice(e.indexOf(" ") + 1),
      }))
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    const files: SandboxFile[] = [];
    for (const e of entries)
      files.push({ path: e.path, content: await this.download(e.path), mode: e.mode });
    return { files };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.onClose(this);
    await this.backend.deleteSandbox(this.id);
  }

  private check(): void {
    if (this.closed) throw new SandboxClosedError(this.id);
  }
}

/** POST /process/execute; a 408 (the command's timeout) is `timedOut`, not an error. */
async function execute(
  api: ServiceClient,
  toolbox: string,
  request: { command: string; timeout: number; cwd?: string; envs?: Record<string, string> },
): Promise<{ exitCode: number; result: string; timedOut: boolean }> {
  const res = await api.request({
    method: "POST",
    url: `${toolbox}/process/execute`,
    json: request,
    accept: [408],
    retry: "429",
    what: "run a command",
  });
  if (res.status === 408) return { exitCode: -1, result: "", timedOut: true };
  const body = res.json<{ exitCode: number; result: string }>();
  return { ...body, timedOut: false };
}
