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
 */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import type { TraceRecord } from "../types/index.js";

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
`;

interface SessionDbRow {
  id: string;
  token: string;
  metadata: string;
  sampling_params: string;
  created_at: number;
  closed_at: number | null;
}

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

  constructor(options: StoreOptions) {
    this.path = options.path;
    try {
      if (options.path !== ":memory:") mkdirSync(dirname(options.path), { recursive: true });
      this.db = new Database(options.path);
      this.db.pragma("journal_mode = WAL");
      this.db.pragma(`synchronous = ${options.synchronous === "full" ? "FULL" : "NORMAL"}`);
      this.db.pragma("busy_timeout = 5000");
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
    };
  }

  // ---- group commit ----

  /** Runs `fn` inside the next group-commit transaction; resolves once that has committed. */
  write<T>(fn: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ run: fn, resolve: resolve as (v: unknown) => void, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Commits every queued write now (also called by close()). */
  flush(): void {
    this.flushScheduled = false;
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    // The common case: the whole batch in one transaction, no savepoints (they cost as much as
    // the inserts). A write can fail (a duplicate id); then the batch is redone one write per
    // transaction, so that only the failing write fails.
    const values = this.commitAll(batch);
    if (values) {
      for (let i = 0; i < batch.length; i++) batch[i]!.resolve(values[i]);
      return;
    }
    for (const w of batch) {
      const one = this.commitAll([w]);
      if (one) w.resolve(one[0]);
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
    });
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
    this.flush();
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
