/**
 * The embedded store: one SQLite file (better-sqlite3, WAL) holding sessions and traces; episodes,
 * runs and metrics join it later. `":memory:"` gives a throwaway in-memory store.
 *
 * Durability: a write's promise resolves only once its transaction has committed. In WAL mode with
 * `synchronous=NORMAL` a committed transaction is in the WAL file (the OS page cache at worst), so it
 * survives the process being killed (`kill -9`) at any moment; only an OS crash or power loss can
 * drop the last transactions. `synchronous: "full"` closes that gap too, at the price of an fsync
 * per commit.
 *
 * Group commit: writes queued during one turn of the event loop are committed together in one
 * transaction (if one fails, the batch is redone a write at a time, so it fails alone). Under load that turns
 * thousands of commits a second into a few hundred, with no write released before it is durable.
 *
 * Checkpoints: for a file, SQLite's automatic checkpoint (which would run inside a commit every
 * 1,000 WAL pages, two fsyncs included, with the event loop blocked) is off. After about
 * CHECKPOINT_BYTES of writes a worker thread checkpoints the WAL while commits go on
 * (checkpointer.ts). The WAL starts over from its beginning at the first commit after a
 * checkpoint that copied all of it; under steady load commits land during every checkpoint and
 * that never happens, so once the WAL holds `maxWalPages` pages the checkpoint is run once more
 * with the queued writes held back (they wait; the event loop does not) and the WAL restarts.
 */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import type { TraceRecord } from "../types/index.js";
import { Checkpointer } from "./checkpointer.js";

export interface SessionRow {
  id: string;
  token: string;
  metadata: Record<string, unknown>;
  samplingParams: Record<string, unknown>;
  createdAt: number;
  closedAt: number | null;
}

export interface TraceQuery {
  sessionIds?: string[];
  /** Only traces finished strictly after this time (ms since the epoch). */
  since?: number;
  /** Only traces stored after this cursor (the `seq` of an earlier result). */
  after?: number;
  limit?: number;
}

export interface StoredTrace {
  seq: number;
  trace: TraceRecord;
}

export interface StoreOptions {
  /** A file path, or ":memory:". */
  path: string;
  synchronous?: "normal" | "full";
  /**
   * WAL pages (4 KiB) past which a checkpoint holds writes back until the WAL can start over
   * (default 16,384, 64 MiB): the WAL file's size under steady load. Larger means rarer pauses.
   */
  maxWalPages?: number;
  /**
   * Who checkpoints a file store's WAL: a worker thread (default, see above), or SQLite's own
   * automatic checkpoint inside the commit that crosses 1,000 pages (blocking the event loop).
   */
  checkpoints?: "worker" | "sqlite";
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS sessions (
  id TEXT PRIMARY KEY,
  token TEXT NOT NULL,
  metadata TEXT NOT NULL,
  sampling_params TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  closed_at INTEGER
);
CREATE TABLE IF NOT EXISTS traces (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  session_id TEXT NOT NULL,
  finished_at INTEGER NOT NULL,
  data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS traces_by_session ON traces (session_id, seq);
CREATE INDEX IF NOT EXISTS traces_by_time ON traces (finished_at);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  config TEXT NOT NULL,
  started_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS metrics (
  run_id TEXT NOT NULL,
  step INTEGER NOT NULL,
  data TEXT NOT NULL,
  PRIMARY KEY (run_id, step)
);
`;

interface SessionDbRow {
  id: string;
  token: string;
  metadata: string;
  sampling_params: string;
  created_at: number;
  closed_at: number | null;
}

/** Bytes written (trace JSON and the like) after which the WAL is checkpointed: ~1,000 pages. */
const CHECKPOINT_BYTES = 4 * 1024 * 1024;

/** The longest that writes are held back for the WAL to restart. */
const MAX_HOLD_MS = 1_000;

interface PendingWrite {
  run: () => unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

export class Store {
  readonly path: string;
  private readonly db: Database.Database;
  private readonly stmts;
  private readonly tx: Record<"begin" | "commit" | "rollback", Database.Statement>;
  private pending: PendingWrite[] = [];
  private flushScheduled = false;
  private readonly synchronous: "NORMAL" | "FULL";
  /** Off-thread checkpoints, for a file store; started with the first checkpoint. */
  private checkpointer: Checkpointer | undefined;
  private checkpointInWorker: boolean;
  /** Bytes written since the last checkpoint (an estimate of the WAL's growth). */
  private walBytes = 0;
  private checkpointing = false;
  /** Transactions committed so far (to tell whether any landed during a checkpoint). */
  private commits = 0;
  /** While true, queued writes wait (the last step of a checkpoint, see above). */
  private holdWrites = false;
  private readonly maxWalPages: number;

  constructor(options: StoreOptions) {
    this.path = options.path;
    try {
      if (options.path !== ":memory:") mkdirSync(dirname(options.path), { recursive: true });
      this.db = new Database(options.path);
      this.db.pragma("journal_mode = WAL");
      this.synchronous = options.synchronous === "full" ? "FULL" : "NORMAL";
      this.db.pragma(`synchronous = ${this.synchronous}`);
      this.db.pragma("busy_timeout = 5000");
      this.checkpointInWorker =
        options.path !== ":memory:" && !this.db.memory && options.checkpoints !== "sqlite";
      this.maxWalPages = options.maxWalPages ?? 16_384;
      if (this.checkpointInWorker) this.db.pragma("wal_autocheckpoint = 0");
      this.db.exec(SCHEMA);
    } catch (err) {
      throw new Error(
        `cannot open the store at ${options.path}: ${(err as Error).message}. ` +
          "Check the path is writable, or use --store memory.",
      );
    }
    // Prepared once: building a transaction wrapper per flush costs more than the writes.
    this.tx = {
      begin: this.db.prepare("BEGIN"),
      commit: this.db.prepare("COMMIT"),
      rollback: this.db.prepare("ROLLBACK"),
    };
    this.stmts = {
      insertSession: this.db.prepare(
        "INSERT INTO sessions (id, token, metadata, sampling_params, created_at) VALUES (?, ?, ?, ?, ?)",
      ),
      getSession: this.db.prepare("SELECT * FROM sessions WHERE id = ?"),
      listSessions: this.db.prepare("SELECT * FROM sessions WHERE id > ? ORDER BY id LIMIT ?"),
      countSessions: this.db.prepare("SELECT COUNT(*) AS n FROM sessions"),
      closeSession: this.db.prepare("UPDATE sessions SET closed_at = ? WHERE id = ?"),
      deleteSession: this.db.prepare("DELETE FROM sessions WHERE id = ?"),
      deleteSessionTraces: this.db.prepare("DELETE FROM traces WHERE session_id = ?"),
      insertTrace: this.db.prepare(
        "INSERT INTO traces (id, session_id, finished_at, data) VALUES (?, ?, ?, ?)",
      ),
      getTrace: this.db.prepare("SELECT seq, data FROM traces WHERE id = ?"),
      sessionTraces: this.db.prepare(
        "SELECT seq, data FROM traces WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?",
      ),
      countTraces: this.db.prepare("SELECT COUNT(*) AS n FROM traces"),
      getMeta: this.db.prepare("SELECT value FROM meta WHERE key = ?"),
      setMeta: this.db.prepare(
        "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
      ),
      upsertRun: this.db.prepare(
        "INSERT INTO runs (id, kind, config, started_at) VALUES (?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET config = excluded.config",
      ),
      // a step's metrics merge into what is stored for it (validation after training, ...)
      putMetrics: this.db.prepare(
        "INSERT INTO metrics (run_id, step, data) VALUES (?, ?, ?) ON CONFLICT(run_id, step) DO UPDATE SET data = json_patch(data, excluded.data)",
      ),
      runMetrics: this.db.prepare("SELECT step, data FROM metrics WHERE run_id = ? ORDER BY step"),
      dropMetricsAfter: this.db.prepare("DELETE FROM metrics WHERE run_id = ? AND step > ?"),
      listRuns: this.db.prepare("SELECT * FROM runs ORDER BY started_at"),
    };
  }

  // ---- group commit ----

  /** Runs `fn` inside the next group-commit transaction; resolves once that has committed. */
  write<T>(fn: () => T, bytes = 256): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ run: fn, resolve: resolve as (v: unknown) => void, reject });
      this.walBytes += bytes;
      this.scheduleFlush();
    });
  }

  private scheduleFlush(): void {
    if (this.flushScheduled || this.holdWrites) return;
    this.flushScheduled = true;
    setImmediate(() => this.flush());
  }

  /** Commits every queued write now (also called by close()). */
  flush(): void {
    this.flushScheduled = false;
    if (this.holdWrites) return;
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    // The common case: the whole batch in one transaction, no savepoints (they cost as much as
    // the inserts). A write can fail (a duplicate id); then the batch is redone one write per
    // transaction, so that only the failing write fails.
    const values = this.commitAll(batch);
    if (values) {
      for (let i = 0; i < batch.length; i++) batch[i]!.resolve(values[i]);
    } else {
      for (const w of batch) {
        const one = this.commitAll([w]);
        if (one) w.resolve(one[0]);
      }
    }
    if (this.checkpointInWorker && this.walBytes >= CHECKPOINT_BYTES && !this.checkpointing) {
      void this.checkpointInBackground();
    }
  }

  /** One checkpoint cycle on the worker thread (see the header comment). */
  private async checkpointInBackground(): Promise<void> {
    this.checkpointing = true;
    this.walBytes = 0;
    try {
      this.checkpointer ??= new Checkpointer(this.path, this.synchronous);
      const commits = this.commits;
      const r = await this.checkpointer.run("PASSIVE");
      if (this.commits !== commits && r.log >= this.maxWalPages && this.db.open) {
        // Commits landed during the checkpoint, so the WAL cannot restart and goes on growing:
        // copy the rest with writes held back, once the WAL is this large.
        this.holdWrites = true;
        // Bounded: a checkpoint stuck in a slow fsync releases the writes after a second (the WAL
        // then restarts at a later checkpoint).
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          this.checkpointer.run("PASSIVE"),
          new Promise<void>((resolve) => {
            timer = setTimeout(resolve, MAX_HOLD_MS);
          }),
        ]);
        clearTimeout(timer);
      }
    } catch (err) {
      // No worker (it failed or the store closed): SQLite's own automatic checkpoint takes over.
      if (this.db.open) {
        console.error(
          `[rllm store] ${(err as Error).message}; SQLite's automatic checkpoint takes over`,
        );
        this.db.pragma("wal_autocheckpoint = 1000");
      }
      this.checkpointer?.close();
      this.checkpointer = undefined;
      this.checkpointInWorker = false;
    } finally {
      this.checkpointing = false;
      this.holdWrites = false;
      if (this.pending.length > 0 && this.db.open) this.scheduleFlush();
    }
  }

  /** Runs the writes in one transaction; their results, or undefined after rejecting on failure. */
  private commitAll(batch: PendingWrite[]): unknown[] | undefined {
    const tx = this.tx;
    const values: unknown[] = [];
    try {
      tx.begin.run();
      for (const w of batch) values.push(w.run());
      tx.commit.run();
      this.commits++;
      return values;
    } catch (err) {
      if (this.db.inTransaction) tx.rollback.run();
      if (batch.length === 1) batch[0]!.reject(err);
      return undefined;
    }
  }

  // ---- sessions ----

  insertSession(row: Omit<SessionRow, "closedAt">): Promise<void> {
    const args = [
      row.id,
      row.token,
      JSON.stringify(row.metadata),
      JSON.stringify(row.samplingParams),
      row.createdAt,
    ] as const;
    return this.write(() => {
      this.stmts.insertSession.run(...args);
    });
  }

  getSession(id: string): SessionRow | undefined {
    const r = this.stmts.getSession.get(id) as SessionDbRow | undefined;
    return r && toSession(r);
  }

  /** Sessions ordered by id, after the cursor `after` (an id), at most `limit`. */
  listSessions(after: string, limit: number): SessionRow[] {
    return (this.stmts.listSessions.all(after, limit) as SessionDbRow[]).map(toSession);
  }

  countSessions(): number {
    return (this.stmts.countSessions.get() as { n: number }).n;
  }

  closeSession(id: string, at: number): void {
    this.stmts.closeSession.run(at, id);
  }

  /** Removes the session; its traces too when `purgeTraces` (they are training data otherwise). */
  deleteSession(id: string, purgeTraces: boolean): Promise<number> {
    return this.write(() => {
      this.stmts.deleteSession.run(id);
      return purgeTraces ? this.stmts.deleteSessionTraces.run(id).changes : 0;
    });
  }

  // ---- traces ----

  /** Resolves with the trace's sequence number once it has committed (see the durability note). */
  insertTrace(trace: TraceRecord): Promise<number> {
    // Serialised now, so later changes to the object cannot leak into what is stored.
    const data = JSON.stringify(trace);
    const finishedAt = Math.round(trace.finishedAt);
    return this.write(() => {
      const info = this.stmts.insertTrace.run(trace.id, trace.sessionId, finishedAt, data);
      return Number(info.lastInsertRowid);
    }, data.length + 256);
  }

  getTrace(id: string): StoredTrace | undefined {
    const r = this.stmts.getTrace.get(id) as { seq: number; data: string } | undefined;
    return r && { seq: r.seq, trace: JSON.parse(r.data) as TraceRecord };
  }

  sessionTraces(sessionId: string, after = 0, limit = 10_000): StoredTrace[] {
    return (
      this.stmts.sessionTraces.all(sessionId, after, limit) as { seq: number; data: string }[]
    ).map((r) => ({ seq: r.seq, trace: JSON.parse(r.data) as TraceRecord }));
  }

  queryTraces(q: TraceQuery): StoredTrace[] {
    const where: string[] = [];
    const args: (string | number)[] = [];
    if (q.sessionIds && q.sessionIds.length > 0) {
      where.push(`session_id IN (${q.sessionIds.map(() => "?").join(",")})`);
      args.push(...q.sessionIds);
    }
    if (q.since !== undefined) {
      where.push("finished_at > ?");
      args.push(q.since);
    }
    if (q.after !== undefined) {
      where.push("seq > ?");
      args.push(q.after);
    }
    const sql =
      `SELECT seq, data FROM traces ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ` +
      "ORDER BY seq LIMIT ?";
    args.push(q.limit ?? 1000);
    return (this.db.prepare(sql).all(...args) as { seq: number; data: string }[]).map((r) => ({
      seq: r.seq,
      trace: JSON.parse(r.data) as TraceRecord,
    }));
  }

  countTraces(): number {
    return (this.stmts.countTraces.get() as { n: number }).n;
  }

  // ---- small key/value state (weight version, ...) ----

  getMeta(key: string): string | undefined {
    return (this.stmts.getMeta.get(key) as { value: string } | undefined)?.value;
  }

  setMeta(key: string, value: string): void {
    this.stmts.setMeta.run(key, value);
  }

  /** Records a run (training or eval) and its config; a resumed run keeps its start time. */
  upsertRun(run: { id: string; kind: string; config: unknown; startedAt: number }): Promise<void> {
    return this.write(() => {
      this.stmts.upsertRun.run(run.id, run.kind, JSON.stringify(run.config), run.startedAt);
    });
  }

  listRuns(): { id: string; kind: string; config: unknown; startedAt: number }[] {
    return (
      this.stmts.listRuns.all() as {
        id: string;
        kind: string;
        config: string;
        started_at: number;
      }[]
    ).map((r) => ({
      id: r.id,
      kind: r.kind,
      config: JSON.parse(r.config),
      startedAt: r.started_at,
    }));
  }

  /** Stores (or merges into) one step's metrics of a run. */
  putMetrics(runId: string, step: number, metrics: Record<string, number>): Promise<void> {
    return this.write(() => {
      this.stmts.putMetrics.run(runId, step, JSON.stringify(metrics));
    });
  }

  /** A run's metrics, one object per step in step order. */
  runMetrics(runId: string): ({ step: number } & Record<string, number>)[] {
    return (this.stmts.runMetrics.all(runId) as { step: number; data: string }[]).map((r) => ({
      ...(JSON.parse(r.data) as Record<string, number>),
      step: r.step,
    }));
  }

  /** Forgets a run's metrics after `step` (a resume redoes those steps). */
  dropMetricsAfter(runId: string, step: number): Promise<void> {
    return this.write(() => {
      this.stmts.dropMetricsAfter.run(runId, step);
    });
  }

  /** Moves the WAL into the main database file (what POST /admin/flush asks for). */
  checkpoint(): { walFrames: number; checkpointed: number } {
    const [r] = this.db.pragma("wal_checkpoint(TRUNCATE)") as {
      busy: number;
      log: number;
      checkpointed: number;
    }[];
    return { walFrames: r?.log ?? 0, checkpointed: r?.checkpointed ?? 0 };
  }

  close(): void {
    if (!this.db.open) return;
    this.holdWrites = false;
    this.flush();
    if (this.checkpointer) {
      this.checkpointer.close();
      this.checkpointer = undefined;
    }
    this.db.close();
  }
}

function toSession(r: SessionDbRow): SessionRow {
  return {
    id: r.id,
    token: r.token,
    metadata: JSON.parse(r.metadata) as Record<string, unknown>,
    samplingParams: JSON.parse(r.sampling_params) as Record<string, unknown>,
    createdAt: r.created_at,
    closedAt: r.closed_at,
  };
}
