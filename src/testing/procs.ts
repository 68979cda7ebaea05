/** Test helpers about processes, read from /proc (Linux). */
import { readFileSync } from "node:fs";

/** Whether `pid` runs (a zombie counts as gone). */
export function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

/** Waits up to `ms` for every one of `pids` to be gone; whether they all are. */
export async function allGone(pids: number[], ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until && pids.some(running)) await new Promise((r) => setTimeout(r, 50));
  return !pids.some(running);
}
