/**
 * WAL checkpoints off the event loop. A checkpoint copies the WAL's pages into the database file
 * and fsyncs both; SQLite's automatic checkpoint does that inside whichever commit crosses 1,000
 * WAL pages, blocking the event loop for milliseconds. Here a worker thread with its own
 * connection to the same file runs them instead (SQLite allows a checkpoint to run beside the
 * writer), and the store only tells it when.
 *
 * The worker is plain JavaScript evaluated from a string, so it runs the same under tsx, from
 * dist/ and from an installed package.
 */
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

export interface CheckpointResult {
  /** 1 when the checkpoint could not run to completion (another checkpoint, a reader). */
  busy: number;
  /** Frames in the WAL. */
  log: number;
  /** Frames of it now in the database file. */
  checkpointed: number;
}

const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.sqlite);
const db = new Database(workerData.path);
db.pragma("busy_timeout = 5000");
db.pragma("wal_autocheckpoint = 0");
db.pragma("synchronous = " + workerData.synchronous);
parentPort.on("message", (m) => {
  try {
    const [r] = db.pragma("wal_checkpoint(" + m.mode + ")");
    parentPort.postMessage({ id: m.id, busy: r.busy, log: r.log, checkpointed: r.checkpointed });
  } catch (err) {
    parentPort.postMessage({ id: m.id, error: String(err && err.message) });
  }
});
`;

interface Reply extends Partial<CheckpointResult> {
  id: number;
  error?: string;
}

export class Checkpointer {
  private readonly worker: Worker;
  private nextId = 0;
  private readonly waiting = new Map<
    number,
    { resolve(r: CheckpointResult): void; reject(e: Error): void }
  >();
  private failure: Error | undefined;

  constructor(path: string, synchronous: "NORMAL" | "FULL") {
    const sqlite = createRequire(import.meta.url).resolve("better-sqlite3");
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { path, sqlite, synchronous },
    });
    // The worker never keeps the process alive: the store's own close() is what ends it.
    this.worker.unref();
    this.worker.on("message", (m: Reply) => {
      const w = this.waiting.get(m.id);
      if (!w) return;
      this.waiting.delete(m.id);
      if (m.error !== undefined) w.reject(new Error(`WAL checkpoint failed: ${m.error}`));
      else w.resolve({ busy: m.busy ?? 0, log: m.log ?? 0, checkpointed: m.checkpointed ?? 0 });
    });
    const fail = (err: Error) => {
      this.failure ??= err;
      for (const w of this.waiting.values()) w.reject(err);
      this.waiting.clear();
    };
    this.worker.on("error", fail);
    this.worker.on("exit", (code) => fail(new Error(`checkpoint worker exited (${code})`)));
  }

  /** Runs `PRAGMA wal_checkpoint(mode)` on the worker. */
  run(mode: "PASSIVE" | "TRUNCATE"): Promise<CheckpointResult> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ id, mode });
    });
  }

  close(): void {
    this.failure ??= new Error("the store is closed");
    void this.worker.terminate().catch(() => {});
  }
}
