/**
 * The LLM judge's persistent cache: verdict replies by content hash (rewards/judge-client.ts says
 * what the hash covers) in one SQLite file, by default $RLLM_HOME/cache/judge.db, shared by every
 * run on the machine: a verdict paid for once is reused by the next eval of the same responses.
 *
 * WAL mode and a busy timeout, so that several processes read and write it at once; a write that
 * fails (the disk full, the file locked past the timeout) is dropped, and a read that fails (the
 * file corrupt, locked) is a miss, said once on stderr — the cache is an optimisation and a judge
 * call must not fail for it (a grader that throws a non-infrastructure error scores 0). Only
 * verdicts that parsed are ever written.
 */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";

export class JudgeCacheFile {
  private readonly db: Database.Database;
  private readonly getStmt: Database.Statement<[string], { reply: string }>;
  private readonly setStmt: Database.Statement<[string, string, string, number]>;

  constructor(readonly path: string) {
    mkdirSync(dirname(path), { recursive: true });
    this.db = new Database(path);
    this.db.pragma("journal_mode = WAL");
    this.db.pragma("busy_timeout = 5000");
    this.db.exec(
      `CREATE TABLE IF NOT EXISTS judge_verdicts (
         key TEXT PRIMARY KEY, model TEXT NOT NULL, reply TEXT NOT NULL, created_at INTEGER NOT NULL
       )`,
    );
    this.getStmt = this.db.prepare("SELECT reply FROM judge_verdicts WHERE key = ?");
    this.setStmt = this.db.prepare(
      "INSERT OR REPLACE INTO judge_verdicts (key, model, reply, created_at) VALUES (?, ?, ?, ?)",
    );
  }

  private warned = false;

  get(key: string): string | undefined {
    try {
      return this.getStmt.get(key)?.reply;
    } catch (err) {
      if (!this.warned)
        console.warn(
          `rllm: the judge cache ${this.path} cannot be read (${(err as Error).message}); verdicts are asked anew — delete the file, or set judge.cache false`,
        );
      this.warned = true;
      return undefined;
    }
  }

  set(key: string, model: string, reply: string): void {
    try {
      this.setStmt.run(key, model, reply, Date.now());
    } catch {
      // dropped: see the header
    }
  }

  close(): void {
    this.db.close();
  }
}
