/**
 * A fake Daytona: the REST API and the sandbox toolbox on one loopback HTTP server, for the
 * contract tests of src/sandbox/remote/daytona.ts (the real service cannot be reached here).
 * Commands run as host child processes; each sandbox is a temp dir whose `home/daytona` is $HOME.
 *
 * THE CONTRACT (github.com/daytonaio/daytona at b5a5d9e78, June 2026)
 * ------------------------------------------------------------------
 * API, base {apiUrl} (default https://app.daytona.io/api; libs/sdk-typescript/src/Daytona.ts):
 *  - Auth: `Authorization: Bearer <api key>` on every request; `X-Daytona-Organization-ID` optional
 *    with an API key (Daytona.ts builds both headers). A bad key: 401 (Nest's UnauthorizedException).
 *  - Errors (apps/api/src/filters/all-exceptions.filter.ts): JSON {path, timestamp, statusCode,
 *    error (the status text), message}.
 *  - POST /sandbox (libs/api-client/src/api/sandbox-api.ts createSandbox, @HttpCode(200) in
 *    apps/api/src/sandbox/controllers/sandbox.controller.ts), body CreateSandbox
 *    (libs/api-client/src/models/create-sandbox.ts; validated by apps/api/src/sandbox/dto/
 *    create-sandbox.dto.ts): name, snapshot, user, env, labels (string maps), public,
 *    networkBlockAll (boolean), networkAllowList, domainAllowList, target (string), cpu, gpu,
 *    memory (GiB), disk (GiB) (numbers >= 0), autoStopInterval, autoArchiveInterval,
 *    autoDeleteInterval (minutes; autoDelete 0 = delete on stop), volumes, buildInfo
 *    {dockerfileContent, contextHashes?} (an image: the SDK sends `FROM <image>\n`, Image.base in
 *    libs/sdk-typescript/src/Image.ts), linkedSandbox. A taken name: 409 "Sandbox with name X
 *    already exists" (sandbox.service.ts). Answer: SandboxDto (apps/api/src/sandbox/dto/
 *    sandbox.dto.ts) with id, state, errorReason, toolboxProxyUrl, ...
 *  - GET /sandbox/{idOrName}: the SandboxDto; states (enums/sandbox-state.enum.ts) include
 *    creating, pending_build, building_snapshot, starting, started, error, build_failed. The SDK
 *    polls it until "started" (Sandbox.waitUntilStarted).
 *  - DELETE /sandbox/{idOrName}: 200; unknown: 404.
 * Toolbox, base {toolboxProxyUrl}/{sandboxId} (Sandbox.ts constructor), same auth headers; routes
 * from libs/toolbox-api-client/src/api/{process,file-system}-api.ts, handlers in
 * apps/daemon/pkg/toolbox (errors: libs/common-go/pkg/errors ErrorResponse {statusCode, message,
 * code, timestamp, path, method}):
 *  - POST /process/execute {command, timeout? (uint32 s), cwd?, envs?} (process/types.go,
 *    process/execute.go): empty command 400; env names must match ^[A-Za-z_][A-Za-z0-9_]*$ (400,
 *    common/env.go); the command is piped to the shell's stdin in its own process group; stdout and
 *    stderr COMBINED into `result`; {exitCode, result} 200; a shell that cannot start (bad cwd):
 *    200 {exitCode: -1, result: error}; past `timeout` the group is SIGKILLed and the answer is 408
 *    "command execution timeout" with no output.
 *  - POST /files/upload?path= multipart field `file` (fs/upload_file.go): no path 400, no file 400;
 *    parent dirs made; 200.
 *  - POST /files/permissions?path=&mode= (fs/set_file_permissions.go): mode octal ("0755"), bad
 *    mode 400 "invalid mode format"; missing path 404.
 *  - GET /files/download?path= (fs/download_file.go): octet-stream; missing 404; a dir 400.
 *
 * Where the fake is stricter than Daytona (to catch a client's mistakes, never to accept more):
 * an unknown CreateSandbox key is 400 (Nest's ValidationPipe there has no whitelist and ignores
 * it); a toolbox path outside the sandbox's temp dir is 400 (there, the sandbox's whole disk).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdirSync, rmSync } from "node:fs";
import { chmod, mkdir, readFile, stat, writeFile } from "node:fs/promises";
import {
  createServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
  STATUS_CODES,
} from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string | string[] | undefined>;
  json?: unknown;
}

interface FakeSandbox {
  id: string;
  name: string;
  root: string;
  home: string;
  body: Record<string, unknown>;
  /** GETs left before it reports "started". */
  pollsToStart: number;
  procs: Set<ChildProcess>;
}

interface Fault {
  method: string;
  path: RegExp;
  status: number;
  message: string;
  times: number;
  /** The request is served first (its effect happens), then the fault is answered. */
  after: boolean;
}

const CREATE_KEYS: Record<string, "string" | "boolean" | "number" | "object" | "array"> = {
  name: "string",
  snapshot: "string",
  user: "string",
  env: "object",
  labels: "object",
  public: "boolean",
  networkBlockAll: "boolean",
  networkAllowList: "string",
  domainAllowList: "string",
  target: "string",
  cpu: "number",
  gpu: "number",
  gpuType: "array",
  memory: "number",
  disk: "number",
  autoStopInterval: "number",
  autoArchiveInterval: "number",
  autoDeleteInterval: "number",
  volumes: "array",
  buildInfo: "object",
  linkedSandbox: "string",
};
const ENV_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export class FakeDaytona {
  readonly requests: RecordedRequest[] = [];
  readonly sandboxes = new Map<string, FakeSandbox>();
  /** GETs a new sandbox answers "starting" before "started". */
  pollsToStart = 1;
  /** When set, new sandboxes end in state "build_failed" with this errorReason. */
  startError: string | undefined;
  private faults: Fault[] = [];
  private server!: Server;
  url = "";

  constructor(readonly apiKey = "test-key") {}

  static async start(apiKey?: string): Promise<FakeDaytona> {
    const fake = new FakeDaytona(apiKey);
    fake.server = createServer((req, res) => void fake.handle(req, res));
    await new Promise<void>((ok) => fake.server.listen(0, "127.0.0.1", ok));
    fake.url = `http://127.0.0.1:${(fake.server.address() as AddressInfo).port}`;
    return fake;
  }

  get apiUrl(): string {
    return `${this.url}/api`;
  }

  /** The next `times` requests of `method` whose path matches answer `status`. */
  fail(method: string, path: RegExp, status: number, times = 1, message = "injected fault"): void {
    this.faults.push({ method, path, status, message, times, after: false });
  }

  /** The next request of `method` whose path matches is served, but answered `status` (a lost answer). */
  failAfter(
    method: string,
    path: RegExp,
    status: number,
    message = "injected fault after serving",
  ): void {
    this.faults.push({ method, path, status, message, times: 1, after: true });
  }

  /** Delete a sandbox behind the client's back (as auto-delete would). */
  deleteDirectly(id: string): void {
    const s = this.sandboxes.get(id);
    if (s) this.destroy(s);
  }

  /** Recorded requests of `method` whose path matches. */
  calls(method: string, path: RegExp): RecordedRequest[] {
    return this.requests.filter((r) => r.method === method && path.test(r.path));
  }

  async close(): Promise<void> {
    for (const s of this.sandboxes.values()) this.destroy(s);
    this.server.closeAllConnections();
    await new Promise<void>((ok) => this.server.close(() => ok()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", this.url);
    const raw = await readBody(req);
    const recorded: RecordedRequest = {
      method: req.method ?? "",
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: req.headers,
    };
    if (String(req.headers["content-type"] ?? "").startsWith("application/json")) {
      try {
        recorded.json = JSON.parse(raw.toString("utf8"));
      } catch {
        recorded.json = Symbol.for("invalid json");
      }
    }
    this.requests.push(recorded);
    const api = url.pathname.startsWith("/api/");
    try {
      const fault = this.faults.find((f) => f.method === req.method && f.path.test(url.pathname));
      if (fault) {
        if (--fault.times <= 0) this.faults.splice(this.faults.indexOf(fault), 1);
        if (fault.after) {
          const discard = {
            writeHead: () => discard,
            end: () => discard,
          } as unknown as ServerResponse;
          if (api) await this.routeApi(req.method ?? "", url, recorded, discard);
          else await this.routeToolbox(req, url, raw, recorded, discard);
        }
        throw new HttpError(fault.status, fault.message);
      }
      if (req.headers.authorization !== `Bearer ${this.apiKey}`)
        throw new HttpError(401, "Unauthorized");
      if (api) await this.routeApi(req.method ?? "", url, recorded, res);
      else await this.routeToolbox(req, url, raw, recorded, res);
    } catch (err) {
      const status = err instanceof HttpError ? err.status : 500;
      const message = err instanceof HttpError ? err.message : String(err);
      const body = api
        ? {
            path: url.pathname,
            timestamp: new Date().toISOString(),
            statusCode: status,
            error: statusText(status),
            message,
          }
        : {
            statusCode: status,
            message,
            code: statusText(status).toUpperCase().replaceAll(" ", "_"),
            timestamp: new Date().toISOString(),
            path: url.pathname,
            method: req.method,
          };
      send(res, status, body);
    }
  }

  private async routeApi(
    method: string,
    url: URL,
    r: RecordedRequest,
    res: ServerResponse,
  ): Promise<void> {
    const m = /^\/api\/sandbox(?:\/([^/]+))?$/.exec(url.pathname);
    if (!m) throw new HttpError(404, `Cannot ${method} ${url.pathname}`);
    const idOrName = m[1] === undefined ? undefined : decodeURIComponent(m[1]);
    if (method === "POST" && idOrName === undefined)
      return send(res, 200, this.createSandbox(r.json));
    if (idOrName === undefined) throw new HttpError(404, `Cannot ${method} ${url.pathname}`);
    const s = this.find(idOrName);
    if (method === "GET") {
      if (s.pollsToStart > 0) s.pollsToStart--;
      return send(res, 200, this.dto(s));
    }
    if (method === "DELETE") {
      this.destroy(s);
      return send(res, 200, { ...this.dto(s), state: "destroying" });
    }
    throw new HttpError(404, `Cannot ${method} ${url.pathname}`);
  }

  private createSandbox(body: unknown): unknown {
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      throw new HttpError(400, "body must be a JSON object");
    }
    const problems: string[] = [];
    for (const [key, value] of Object.entries(body)) {
      const type = CREATE_KEYS[key];
      if (!type) problems.push(`property ${key} should not exist`);
      else if (type === "array" ? !Array.isArray(value) : typeof value !== type || value === null) {
        problems.push(`${key} must be ${type === "object" ? "an object" : `a ${type}`}`);
      } else if (
        type === "number" &&
        ["cpu", "memory", "disk"].includes(key) &&
        (value as number) < 0
      ) {
        problems.push(`${key} must not be less than 0`);
      }
    }
    const b = body as Record<string, unknown>;
    for (const map of ["env", "labels"]) {
      if (b[map] && Object.values(b[map] as object).some((v) => typeof v !== "string")) {
        problems.push(`${map} values must be strings`);
      }
    }
    const build = b.buildInfo as { dockerfileContent?: unknown } | undefined;
    if (build && typeof build.dockerfileContent !== "string") {
      problems.push("buildInfo.dockerfileContent must be a string");
    }
    if (problems.length) throw new HttpError(400, problems.join(", "));
    const id = randomUUID();
    const name = typeof b.name === "string" ? b.name : id;
    if ([...this.sandboxes.values()].some((s) => s.name === name)) {
      throw new HttpError(409, `Sandbox with name ${name} already exists`);
    }
    const root = join(tmpdir(), `fake-daytona-${id}`);
    const home = join(root, "home", "daytona");
    mkdirSync(home, { recursive: true });
    const s: FakeSandbox = {
      id,
      name,
      root,
      home,
      body: b,
      pollsToStart: this.pollsToStart,
      procs: new Set(),
    };
    this.sandboxes.set(id, s);
    return { ...this.dto(s), state: build ? "pending_build" : "creating" };
  }

  private dto(s: FakeSandbox): Record<string, unknown> {
    return {
      id: s.id,
      name: s.name,
      organizationId: "org-fake",
      user: "daytona",
      env: s.body.env ?? {},
      labels: s.body.labels ?? {},
      public: false,
      networkBlockAll: s.body.networkBlockAll ?? false,
      target: s.body.target ?? "us",
      cpu: s.body.cpu ?? 1,
      gpu: 0,
      memory: s.body.memory ?? 1,
      disk: s.body.disk ?? 3,
      state: s.pollsToStart > 0 ? "starting" : this.startError ? "build_failed" : "started",
      ...(this.startError && s.pollsToStart === 0 ? { errorReason: this.startError } : {}),
      toolboxProxyUrl: `${this.url}/toolbox`,
    };
  }

  private find(idOrName: string): FakeSandbox {
    const s =
      this.sandboxes.get(idOrName) ?? [...this.sandboxes.values()].find((x) => x.name === idOrName);
    if (!s) throw new HttpError(404, `Sandbox with ID or name ${idOrName} not found`);
    return s;
  }

  private destroy(s: FakeSandbox): void {
    for (const p of s.procs) killGroup(p);
    this.sandboxes.delete(s.id);
    rmSync(s.root, { recursive: true, force: true });
  }

  private async routeToolbox(
    req: IncomingMessage,
    url: URL,
    raw: Buffer,
    r: RecordedRequest,
    res: ServerResponse,
  ): Promise<void> {
    const m = /^\/toolbox\/([^/]+)(\/.*)$/.exec(url.pathname);
    if (!m) throw new HttpError(404, "not found");
    const s = this.sandboxes.get(decodeURIComponent(m[1] as string));
    if (!s) throw new HttpError(404, "sandbox not found");
    const route = `${req.method} ${m[2]}`;
    if (route === "POST /process/execute") return send(res, ...(await this.execute(s, r.json)));
    const path = this.pathIn(s, url.searchParams.get("path"));
    if (route === "POST /files/upload") {
      const form = await new Request(url, {
        method: "POST",
        headers: { "content-type": String(req.headers["content-type"] ?? "") },
        body: raw,
      })
        .formData()
        .catch(() => undefined);
      const file = form?.get("file");
      if (!(file instanceof Blob)) throw new HttpError(400, "http: no such file");
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, new Uint8Array(await file.arrayBuffer()));
      return send(res, 200, undefined);
    }
    if (route === "POST /files/permissions") {
      await stat(path).catch(() => {
        throw new HttpError(404, `stat ${path}: no such file or directory`);
      });
      const mode = url.searchParams.get("mode") ?? "";
      if (mode !== "") {
        if (!/^[0-7]+$/.test(mode)) throw new HttpError(400, "invalid mode format");
        await chmod(path, Number.parseInt(mode, 8));
      }
      return send(res, 200, undefined);
    }
    if (route === "GET /files/download") {
      const info = await stat(path).catch(() => {
        throw new HttpError(404, `stat ${path}: no such file or directory`);
      });
      if (info.isDirectory()) throw new HttpError(400, "path must be a file");
      res.writeHead(200, { "content-type": "application/octet-stream" });
      res.end(await readFile(path));
      return;
    }
    throw new HttpError(404, `${route} not found`);
  }

  /** An absolute path inside the sandbox's temp dir (query `path`). */
  private pathIn(s: FakeSandbox, path: string | null): string {
    if (!path) throw new HttpError(400, "path is required");
    const abs = resolve(path);
    if (!abs.startsWith(`${s.root}/`)) {
      throw new HttpError(
        400,
        `fake daytona: path ${path} is outside sandbox ${s.id}'s dir ${s.root}`,
      );
    }
    return abs;
  }

  private async execute(s: FakeSandbox, body: unknown): Promise<[number, unknown]> {
    const b = (body ?? {}) as {
      command?: unknown;
      timeout?: unknown;
      cwd?: unknown;
      envs?: unknown;
    };
    if (typeof body !== "object" || body === null || typeof b.command !== "string") {
      throw new HttpError(400, "invalid request body: command is required");
    }
    if (b.command.trim() === "")
      throw new HttpError(400, "command cannot be empty or whitespace-only");
    if (b.timeout !== undefined && !(Number.isInteger(b.timeout) && (b.timeout as number) >= 0)) {
      throw new HttpError(400, "invalid request body: timeout must be a uint32");
    }
    if (b.cwd !== undefined && typeof b.cwd !== "string")
      throw new HttpError(400, "invalid request body: cwd");
    const envs = (b.envs ?? {}) as Record<string, unknown>;
    for (const [k, v] of Object.entries(envs)) {
      if (!ENV_KEY.test(k)) throw new HttpError(400, `invalid environment variable name: '${k}'`);
      if (typeof v !== "string")
        throw new HttpError(400, "invalid request body: envs values are strings");
    }
    if (b.cwd !== undefined) this.pathIn(s, b.cwd);
    const env = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: s.home,
      LANG: "C.UTF-8",
      ...((s.body.env as Record<string, string>) ?? {}),
      ...(envs as Record<string, string>),
    };
    // One pipe for stdout and stderr, as Go's exec gives when both are the same buffer.
    const child = spawn("sh", ["-c", "exec sh 2>&1"], {
      cwd: b.cwd ?? s.home,
      env,
      detached: true,
      stdio: ["pipe", "pipe", "ignore"],
    });
    s.procs.add(child);
    const chunks: Buffer[] = [];
    child.stdout.on("data", (c: Buffer) => chunks.push(c));
    child.stdin.end(b.command);
    let timedOut = false;
    const timer =
      typeof b.timeout === "number" && b.timeout > 0
        ? setTimeout(() => {
            timedOut = true;
            killGroup(child);
          }, b.timeout * 1000)
        : undefined;
    const code = await new Promise<number>((ok) => {
      child.on("error", () => ok(-1));
      child.on("close", (c) => ok(c ?? -1));
    });
    clearTimeout(timer);
    s.procs.delete(child);
    if (timedOut) throw new HttpError(408, "command execution timeout");
    return [200, { exitCode: code, result: Buffer.concat(chunks).toString("utf8") }];
  }
}

function killGroup(p: ChildProcess): void {
  try {
    if (p.pid !== undefined) process.kill(-p.pid, "SIGKILL");
  } catch {
    // already gone
  }
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((ok, fail) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => ok(Buffer.concat(chunks)));
    req.on("error", fail);
  });
}

function send(res: ServerResponse, status: number, body: unknown): void {
  if (body === undefined) {
    res.writeHead(status).end();
    return;
  }
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

function statusText(status: number): string {
  return STATUS_CODES[status] ?? "Error";
}
