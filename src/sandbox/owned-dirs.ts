/**
 * Temporary dirs owned by this process, named `<prefix><pid>-XXXXXX` in the system's tmp dir, so
 * that the dirs of an rllm process that died without cleaning up (SIGKILL, a crash) can be told
 * apart and removed by the next one: the sandbox backend's support dirs, the harness tunnel's.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A new dir `<tmp>/<prefix><pid>-XXXXXX`. */
export function ownedTempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `${prefix}${process.pid}-`));
}

/** Removes the `<prefix><pid>-*` dirs whose process is gone (Linux: no /proc/<pid>). */
export function sweepOwnedTempDirs(prefix: string): void {
  for (const name of readdirSync(tmpdir())) {
    if (!name.startsWith(prefix)) continue;
    const owner = /^(\d+)-/.exec(name.slice(prefix.length))?.[1];
    if (owner !== undefined && !existsSync(`/proc/${owner}`)) {
      rmSync(join(tmpdir(), name), { recursive: true, force: true });
    }
  }
}
