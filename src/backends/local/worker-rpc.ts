/**
 * Request/response calls to a worker thread: the local backend's trainer replicas and sampler
 * run their CPU-bound work (forward/backward, generation) off the event loop this way.
 *
 *   const w = await WorkerClient.start("train-worker", { config });   // sibling module by name
 *   const r = await w.call<Result>("forwardBackward", payload);
 *
 * The worker module calls {@link serveWorker} with one handler per op. Errors thrown by a handler
 * reject the caller's promise with the same message and name; a worker that dies rejects every
 * pending call and every later one with an error naming the worker and its exit code.
 *
 * Module resolution: the worker's file is a sibling of this one with the same extension, so the
 * same code runs from src/ under tsx and from the compiled dist/.
 *
 * A worker holds the process open only while a call is in flight (ref while busy, unref when
 * idle), so an idle backend or sampler never keeps a finished program running.
 */
import { extname } from "node:path";
import { fileURLToPath } from "node:url";
import { parentPort, type Transferable, Worker, workerData } from "node:worker_threads";

interface Request {
  id: number;
  op: string;
  payload: unknown;
}

interface Response {
  id: number;
  ok: boolean;
  value?: unknown;
  error?: { name: string; message: string; stack?: string };
}

const TRANSFER = Symbol("transfer");

interface WithTransfer {
  [TRANSFER]: true;
  value: unknown;
  transfer: Transferable[];
}

/** A handler's result whose buffers move to the caller instead of being copied. */
export function withTransfer<T>(value: T, transfer: Transferable[]): T {
  return { [TRANSFER]: true, value, transfer } as unknown as T;
}

function isWithTransfer(v: unknown): v is WithTransfer {
  return typeof v === "object" && v !== null && (v as Partial<WithTransfer>)[TRANSFER] === true;
}

/** The URL of a sibling worker module `name` (same directory and extension as this file). */
export function workerModuleUrl(name: string): URL {
  const ext = extname(fileURLToPath(import.meta.url)) || ".js";
  return new URL(`./${name}${ext}`, import.meta.url);
}

export class WorkerCallError extends Error {
  constructor(
    message: string,
    readonly workerName: string,
    name = "WorkerCallError",
  ) {
    super(message);
    this.name = name;
  }
}

export class WorkerClient {
  private nextId = 1;
  private readonly pending = new Map<
    number,
    { resolve: (v: unknown) => void; reject: (e: Error) => void }
  >();
  private dead: Error | undefined;
  private closing = false;

  private constructor(
    private readonly worker: Worker,
    readonly name: string,
  ) {
    worker.on("message", (m: Response) => this.onMessage(m));
    worker.on("error", (e) => this.fail(e instanceof Error ? e : new Error(String(e))));
    worker.on("exit", (code) => {
      if (!this.closing) this.fail(new Error(`worker ${name} exited with code ${code}`));
    });
    // stays ref'd until the start-up ping is answered (then unref'd while idle)
  }

  /**
   * Starts the sibling module `name` (or the module at a URL) with `data` as its workerData;
   * resolves once it answers.
   */
  static async start(
    module: string | URL,
    data: unknown,
    transfer?: Transferable[],
  ): Promise<WorkerClient> {
    const url = typeof module === "string" ? workerModuleUrl(module) : module;
    const name = typeof module === "string" ? module : fileURLToPath(url);
    const options = { workerData: data, transferList: transfer as never };
    // Node 20 does not apply `--import tsx` to a worker's modules: a TypeScript worker (tests,
    // src/ under tsx) starts from a two-line bootstrap that registers tsx first
    const worker = url.pathname.endsWith(".ts")
      ? new Worker(
          `import(${JSON.stringify(import.meta.resolve("tsx/esm/api"))})` +
            `.then((m) => { m.register(); return import(${JSON.stringify(url.href)}); })` +
            `.catch((e) => { setImmediate(() => { throw e; }); });`,
          { ...options, eval: true },
        )
      : new Worker(url, options);
    const client = new WorkerClient(worker, name);
    await new Promise<void>((resolve, reject) => {
      worker.once("online", resolve);
      worker.once("error", reject);
    });
    // a round trip: the module has run its top level (imports, model construction) and listens
    await client.call("ping", null);
    return client;
  }

  /** Whether a call is in flight. */
  get busy(): boolean {
    return this.pending.size > 0;
  }

  call<T>(op: string, payload: unknown, transfer?: Transferable[]): Promise<T> {
    if (this.dead) return Promise.reject(this.dead);
    if (this.closing) return Promise.reject(new Error(`worker ${this.name} is closed`));
    const id = this.nextId++;
    const p = new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
    });
    if (this.pending.size === 1) this.worker.ref();
    this.worker.postMessage({ id, op, payload } satisfies Request, transfer as never);
    return p;
  }

  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    const err = new Error(`worker ${this.name} closed with the call in flight`);
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
    await this.worker.terminate();
  }

  private onMessage(m: Response): void {
    const p = this.pending.get(m.id);
    if (!p) return;
    this.pending.delete(m.id);
    if (this.pending.size === 0) this.worker.unref();
    if (m.ok) p.resolve(m.value);
    else {
      const e = new WorkerCallError(m.error?.message ?? "worker error", this.name, m.error?.name);
      p.reject(e);
    }
  }

  private fail(e: Error): void {
    if (this.dead) return;
    this.dead = new WorkerCallError(`worker ${this.name} failed: ${e.message}`, this.name);
    for (const p of this.pending.values()) p.reject(this.dead);
    this.pending.clear();
    this.worker.unref();
  }
}

export type Handler = (payload: never) => unknown;

/** Worker side: answers calls with `handlers[op](payload)` (sync or async), one at a time. */
export function serveWorker(handlers: Record<string, Handler>): void {
  const port = parentPort;
  if (!port) throw new Error("serveWorker must run in a worker thread");
  const all: Record<string, Handler> = { ping: () => true, ...handlers };
  let queue = Promise.resolve();
  port.on("message", (req: Request) => {
    queue = queue.then(async () => {
      const h = all[req.op];
      try {
        if (!h) throw new Error(`unknown op ${req.op}`);
        const value = await h(req.payload as never);
        if (isWithTransfer(value))
          port.postMessage({ id: req.id, ok: true, value: value.value } satisfies Response, [
            ...value.transfer,
          ] as never);
        else port.postMessage({ id: req.id, ok: true, value } satisfies Response);
      } catch (err) {
        const e = err instanceof Error ? err : new Error(String(err));
        port.postMessage({
          id: req.id,
          ok: false,
          error: { name: e.name, message: e.message, stack: e.stack },
        } satisfies Response);
      }
    });
  });
}

/** The workerData the module was started with. */
export function workerInput<T>(): T {
  return workerData as T;
}
