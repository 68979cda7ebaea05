import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { z } from "zod";
import { archiveGet, archivePut, archiveStat } from "./archive.js";
import { type FakeContainer, type FakeExec, killGroup, runExec } from "./exec.js";

export type { FakeContainer } from "./exec.js";

import {
  asList,
  type ContainerCreate,
  ContainerCreateSchema,
  createRules,
  type ExecCreate,
  ExecCreateSchema,
  ExecStartSchema,
  invalid,
} from "./contract.js";

export interface FakeDockerOptions {
  /** Socket path; default a fresh one in a temp dir. */
  socketPath?: string;
  /** Images the daemon has (refs as a client writes them; "x" means "x:latest"). */
  images?: string[];
  /** Images a pull finds. */
  registry?: string[];
  /** Images whose pull fails in the middle of its 200 stream. */
  failingPulls?: string[];
  /** The highest API version served (default "1.47"). */
  apiVersion?: string;
}

export interface RecordedRequest {
  method: string;
  /** Without the version prefix, e.g. "/containers/create". */
  path: string;
  version: string | null;
  query: Record<string, string>;
  /** The parsed JSON body, or null. */
  body: unknown;
}

const MIN_API = "1.24";

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export class FakeDocker {
  readonly requests: RecordedRequest[] = [];
  readonly containers = new Map<string, FakeContainer>();
  private readonly execs = new Map<string, FakeExec>();
  private readonly images: Set<string>;
  private readonly server: Server;
  private readonly maxApi: string;
  private readonly root = mkdtempSync(join(tmpdir(), "fake-docker-"));
  readonly socketPath: string;

  private constructor(private readonly options: FakeDockerOptions) {
    this.images = new Set((options.images ?? []).map(normalizeRef));
    this.maxApi = options.apiVersion ?? "1.47";
    this.socketPath = options.socketPath ?? join(this.root, "docker.sock");
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((err) => reply(res, 500, { message: String(err) }));
    });
    this.server.on("upgrade", (req: IncomingMessage, socket: Socket, head: Buffer) => {
      this.upgrade(req, socket, head).catch((err: unknown) => {
        const status = err instanceof HttpError ? err.status : 500;
        const body = JSON.stringify({ message: err instanceof Error ? err.message : String(err) });
        socket.end(
          `HTTP/1.1 ${status} Error\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
        );
      });
    });
  }

  static async start(options: FakeDockerOptions = {}): Promise<FakeDocker> {
    const fake = new FakeDocker(options);
    await new Promise<void>((resolve, reject) => {
      fake.server.once("error", reject);
      fake.server.listen(fake.socketPath, resolve);
    });
    return fake;
  }

  /** The kernel's OOM kill, played: SIGKILL to every exec of the container, State.OOMKilled set. */
  oomKill(idOrName: string): void {
    const c = this.container(idOrName);
    c.oomKilled = true;
    for (const p of c.execs) killGroup(p);
  }

  /** Requests whose path (version stripped) matches. */
  requestsTo(method: string, path: RegExp): RecordedRequest[] {
    return this.requests.filter((r) => r.method === method && path.test(r.path));
  }

  async close(): Promise<void> {
    for (const c of this.containers.values()) this.remove(c);
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    rmSync(this.root, { recursive: true, force: true });
  }

  // ---- routing ----

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    try {
      const { path, query } = this.record(req, raw);
      await this.route(req.method ?? "GET", path, query, raw, req, res);
    } catch (err) {
      if (!(err instanceof HttpError)) throw err;
      reply(res, err.status, { message: err.message });
    }
  }

  /** Parses the URL, checks the version prefix and records the request. */
  private record(
    req: IncomingMessage,
    raw: Buffer,
  ): { path: string; query: Record<string, string> } {
    const url = new URL(req.url ?? "/", "http://docker");
    const m = /^\/v(\d+\.\d+)(\/.*)$/.exec(url.pathname);
    const version = m?.[1] ?? null;
    const path = m?.[2] ?? url.pathname;
    const query = Object.fromEntries(url.searchParams);
    const isJson = (req.headers["content-type"] ?? "").startsWith("application/json");
    let body: unknown = null;
    if (raw.length && isJson) {
      try {
        body = JSON.parse(raw.toString("utf8"));
      } catch (err) {
        throw new HttpError(400, `invalid JSON: ${(err as Error).message}`);
      }
    }
    this.requests.push({ method: req.method ?? "GET", path, version, query, body });
    if (version && compareVersions(version, this.maxApi) > 0) {
      throw new HttpError(
        400,
        `client version ${version} is too new. Maximum supported API version is ${this.maxApi}`,
      );
    }
    if (version && compareVersions(version, MIN_API) < 0) {
      throw new HttpError(
        400,
        `client version ${version} is too old. Minimum supported API version is ${MIN_API}, please upgrade your client to a newer version`,
      );
    }
    return { path, query };
  }

  private async route(
    method: string,
    path: string,
    query: Record<string, string>,
    raw: Buffer,
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<void> {
    const json = <T>(schema: z.ZodType<T>): T => parseJson(schema, raw, req);
    if (path === "/_ping" && (method === "GET" || method === "HEAD")) return this.ping(res);
    if (path === "/version" && method === "GET") return this.version(res);
    if (path === "/images/create" && method === "POST") return this.pull(query, res);
    if (path === "/containers/create" && method === "POST") {
      if (raw.length === 0)
        throw new HttpError(400, "config cannot be empty in order to create a container");
      return this.create(json(ContainerCreateSchema), query, res);
    }
    let m = /^\/containers\/([^/]+)(\/[a-z]+)?$/.exec(path);
    if (m) {
      const c = this.container(decodeURIComponent(m[1] as string));
      const action = `${method} ${m[2] ?? ""}`;
      switch (action) {
        case "GET /json":
          return reply(res, 200, this.inspect(c));
        case "POST /start":
          return this.startContainer(c, res);
        case "POST /kill":
          return this.kill(c, res);
        case "DELETE ":
          return this.delete(c, query, res);
        case "POST /exec":
          return this.execCreate(c, json(ExecCreateSchema), res);
        case "HEAD /archive":
        case "GET /archive":
        case "PUT /archive":
          return this.archive(c, method, query, raw, res);
      }
    }
    m = /^\/exec\/([^/]+)\/(json|start)$/.exec(path);
    if (m) {
      const exec = this.exec(m[1] as string);
      if (m[2] === "json" && method === "GET") return reply(res, 200, this.execInspect(exec));
      if (m[2] === "start" && method === "POST") {
        const start = json(ExecStartSchema);
        if (!start.Detach) {
          throw new HttpError(
            400,
            "the fake daemon serves a non-detached exec start only hijacked (Upgrade: tcp)",
          );
        }
        runExec(exec, undefined);
        return reply(res, 200, undefined);
      }
    }
    throw new HttpError(404, `page not found: ${method} ${path}`);
  }

  private ping(res: ServerResponse): void {
    res.writeHead(200, {
      "Content-Type": "text/plain; charset=utf-8",
      "API-Version": this.maxApi,
      OSType: "linux",
      "Docker-Experimental": "false",
      "Builder-Version": "2",
      "Cache-Control": "no-cache, no-store, must-revalidate",
      Pragma: "no-cache",
    });
    res.end("OK");
  }

  private version(res: ServerResponse): void {
    reply(res, 200, {
      Platform: { Name: "fake-docker" },
      Components: [],
      Version: "27.5.1-fake",
      ApiVersion: this.maxApi,
      MinAPIVersion: MIN_API,
      GitCommit: "fake",
      GoVersion: "go1.22",
      Os: "linux",
      Arch: "amd64",
      KernelVersion: "fake",
      BuildTime: new Date(0).toISOString(),
    });
  }

  private pull(query: Record<string, string>, res: ServerResponse): void {
    const from = query.fromImage ?? "";
    const tag = query.tag ?? "";
    if (!from) throw new HttpError(400, "fromImage is required");
    const ref = normalizeRef(tag ? `${from}${tag.startsWith("sha256:") ? "@" : ":"}${tag}` : from);
    if ((this.options.failingPulls ?? []).map(normalizeRef).includes(ref)) {
      res.writeHead(200, { "Content-Type": "application/json" });
      res.write(`${JSON.stringify({ status: `Pulling from ${from}`, id: tag })}\n`);
      const message = `failed to register layer: write /usr/lib/x: no space left on device`;
      res.end(`${JSON.stringify({ errorDetail: { message }, error: message })}\n`);
      return;
    }
    if (!(this.options.registry ?? []).map(normalizeRef).includes(ref)) {
      throw new HttpError(
        404,
        `pull access denied for ${from}, repository does not exist or may require 'docker login': denied: requested access to the resource is denied`,
      );
    }
    this.images.add(ref);
    res.writeHead(200, { "Content-Type": "application/json" });
    res.write(`${JSON.stringify({ status: `Pulling from ${from}`, id: tag })}\n`);
    res.write(`${JSON.stringify({ status: "Digest: sha256:0000000000000000" })}\n`);
    res.end(`${JSON.stringify({ status: `Status: Downloaded newer image for ${ref}` })}\n`);
  }

  // ---- containers ----

  private create(
    config: ContainerCreate,
    query: Record<string, string>,
    res: ServerResponse,
  ): void {
    const rule = createRules(config);
    if (rule) throw new HttpError(400, rule);
    if (!this.images.has(normalizeRef(config.Image))) {
      throw new HttpError(404, `No such image: ${config.Image}`);
    }
    const id = randomBytes(32).toString("hex");
    const name = query.name ?? `fake_${id.slice(0, 8)}`;
    for (const c of this.containers.values()) {
      if (c.name === name) {
        throw new HttpError(
          409,
          `Conflict. The container name "/${name}" is already in use by container "${c.id}".`,
        );
      }
    }
    const dir = join(this.root, id.slice(0, 12));
    mkdirSync(join(dir, "rootfs"), { recursive: true });
    for (const mount of Object.keys(config.HostConfig?.Tmpfs ?? {})) {
      mkdirSync(join(dir, "tmpfs", mount), { recursive: true });
    }
    this.containers.set(id, {
      id,
      name,
      config,
      dir,
      running: false,
      oomKilled: false,
      execs: new Set(),
    });
    reply(res, 201, { Id: id, Warnings: [] });
  }

  private container(idOrName: string): FakeContainer {
    const key = idOrName.replace(/^\//, "");
    for (const c of this.containers.values()) {
      if (c.id === key || c.name === key || (key.length >= 4 && c.id.startsWith(key))) return c;
    }
    throw new HttpError(404, `No such container: ${idOrName}`);
  }

  private inspect(c: FakeContainer): object {
    const entry = [...asList(c.config.Entrypoint), ...asList(c.config.Cmd)];
    return {
      Id: c.id,
      Name: `/${c.name}`,
      Created: new Date().toISOString(),
      Path: entry[0],
      Args: entry.slice(1),
      Image: `sha256:${normalizeRef(c.config.Image)}`,
      State: {
        Status: c.running ? "running" : "exited",
        Running: c.running,
        Paused: false,
        Restarting: false,
        OOMKilled: c.oomKilled,
        Dead: false,
        Pid: c.running ? process.pid : 0,
        ExitCode: 0,
        Error: "",
        StartedAt: new Date().toISOString(),
        FinishedAt: "0001-01-01T00:00:00Z",
      },
      Config: { ...c.config, HostConfig: undefined },
      HostConfig: c.config.HostConfig ?? {},
      Mounts: [],
      NetworkSettings: { Networks: {} },
    };
  }

  private startContainer(c: FakeContainer, res: ServerResponse): void {
    const was = c.running;
    c.running = true;
    reply(res, was ? 304 : 204, undefined);
  }

  private kill(c: FakeContainer, res: ServerResponse): void {
    if (!c.running) throw new HttpError(409, `container ${c.id} is not running`);
    this.stop(c);
    if (c.config.HostConfig?.AutoRemove) this.remove(c);
    reply(res, 204, undefined);
  }

  private delete(c: FakeContainer, query: Record<string, string>, res: ServerResponse): void {
    if (c.running && !isTrue(query.force)) {
      throw new HttpError(
        409,
        `cannot remove container "/${c.name}": container is running: stop the container before removing or force remove`,
      );
    }
    this.remove(c);
    reply(res, 204, undefined);
  }

  private stop(c: FakeContainer): void {
    c.running = false;
    for (const p of c.execs) killGroup(p);
  }

  private remove(c: FakeContainer): void {
    this.stop(c);
    this.containers.delete(c.id);
    for (const [id, e] of this.execs) if (e.container === c) this.execs.delete(id);
    rmSync(c.dir, { recursive: true, force: true });
  }

  private archive(
    c: FakeContainer,
    method: string,
    query: Record<string, string>,
    raw: Buffer,
    res: ServerResponse,
  ): Promise<void> | void {
    const path = query.path ?? "";
    if (!path.startsWith("/")) throw new HttpError(400, `path must be absolute, got "${path}"`);
    const rootfs = join(c.dir, "rootfs");
    const fail = (status: number, message: string) => new HttpError(status, message);
    if (method === "PUT") {
      if (c.config.HostConfig?.ReadonlyRootfs)
        throw fail(400, "container rootfs is marked read-only");
      return archivePut(rootfs, path, raw, c.id, fail).then(() => reply(res, 200, undefined));
    }
    const stat = archiveStat(rootfs, path, c.id, fail);
    res.setHeader(
      "X-Docker-Container-Path-Stat",
      Buffer.from(JSON.stringify(stat)).toString("base64"),
    );
    if (method === "HEAD") return reply(res, 200, undefined);
    return archiveGet(rootfs, path).then((tar) => {
      res.writeHead(200, { "Content-Type": "application/x-tar" });
      res.end(tar);
    });
  }

  // ---- exec ----

  private execCreate(c: FakeContainer, config: ExecCreate, res: ServerResponse): void {
    if (asList(config.Cmd).length === 0) throw new HttpError(400, "No exec command specified");
    if (!c.running) throw new HttpError(409, `container ${c.id} is not running`);
    const id = randomBytes(32).toString("hex");
    this.execs.set(id, {
      id,
      container: c,
      config,
      running: false,
      exitCode: null,
      pid: 0,
      started: false,
    });
    reply(res, 201, { Id: id });
  }

  private exec(id: string): FakeExec {
    const e = this.execs.get(id);
    if (!e) throw new HttpError(404, `No such exec instance: ${id}`);
    return e;
  }

  private execInspect(e: FakeExec): object {
    const cmd = asList(e.config.Cmd);
    return {
      ID: e.id,
      Running: e.running,
      ExitCode: e.exitCode,
      ProcessConfig: {
        privileged: e.config.Privileged ?? false,
        user: e.config.User ?? "",
        tty: e.config.Tty ?? false,
        entrypoint: cmd[0],
        arguments: cmd.slice(1),
      },
      OpenStdin: e.config.AttachStdin ?? false,
      OpenStderr: e.config.AttachStderr ?? false,
      OpenStdout: e.config.AttachStdout ?? false,
      CanRemove: false,
      ContainerID: e.container.id,
      DetachKeys: "",
      Pid: e.pid,
    };
  }

  private async upgrade(req: IncomingMessage, socket: Socket, head: Buffer): Promise<void> {
    const length = Number(req.headers["content-length"] ?? 0);
    let buf = head;
    while (buf.length < length) {
      const chunk: Buffer = await new Promise((resolve, reject) => {
        socket.once("data", resolve);
        socket.once("error", reject);
      });
      buf = Buffer.concat([buf, chunk]);
    }
    const { path } = this.record(req, buf.subarray(0, length));
    const m = /^\/exec\/([^/]+)\/start$/.exec(path);
    if (!m || req.method !== "POST")
      throw new HttpError(404, `page not found: ${req.method} ${path}`);
    const exec = this.exec(m[1] as string);
    const start = parseJson(ExecStartSchema, buf.subarray(0, length), req);
    if (start.Detach || start.Tty)
      throw new HttpError(400, "the fake daemon serves hijacked execs without a TTY only");
    if (exec.started) throw new HttpError(409, `Error: Exec command ${exec.id} has already run`);
    if (!exec.container.running)
      throw new HttpError(409, `container ${exec.container.id} is not running`);
    socket.write(
      "HTTP/1.1 101 UPGRADED\r\nContent-Type: application/vnd.docker.multiplexed-stream\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n\r\n",
    );
    runExec(exec, { socket, stdin: buf.subarray(length) });
  }
}

/** `x` → `x:latest`; docker.io/library/ and docker.io/ prefixes dropped. */
export function normalizeRef(ref: string): string {
  const r = ref.replace(/^docker\.io\/(library\/)?/, "");
  const tagged = r.includes("@") || r.lastIndexOf(":") > r.lastIndexOf("/");
  return tagged ? r : `${r}:latest`;
}

function compareVersions(a: string, b: string): number {
  const [a1 = 0, a2 = 0] = a.split(".").map(Number);
  const [b1 = 0, b2 = 0] = b.split(".").map(Number);
  return a1 - b1 || a2 - b2;
}

function isTrue(v: string | undefined): boolean {
  return v === "1" || v === "true" || v === "True";
}

function parseJson<T>(schema: z.ZodType<T>, raw: Buffer, req: IncomingMessage): T {
  const ct = req.headers["content-type"] ?? "";
  if (raw.length && !ct.startsWith("application/json")) {
    throw new HttpError(400, `unsupported Content-Type header (${ct}): must be 'application/json'`);
  }
  const parsed = schema.safeParse(raw.length ? JSON.parse(raw.toString("utf8")) : {});
  if (!parsed.success) throw new HttpError(400, invalid(parsed.error));
  return parsed.data;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  if (body === undefined) {
    res.writeHead(status);
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "Content-Type": "application/json",
    "Content-Length": Buffer.byteLength(text),
  });
  res.end(text);
}
