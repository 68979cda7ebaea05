/** Test helpers about processes: kill(pid, 0), and /proc (Linux) to tell a zombie from a process. */
import { readFileSync } from "node:fs";

/**
 * Whether `pid` runs: kill(pid, 0) succeeds and it is no zombie; without a readable /proc (not
 * Linux), kill(pid, 0) is all there is to know, so a pid it reaches counts as running.
 */
export function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return true; // no /proc: a process kill() reaches
  }
  return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
}

/** Waits up to `ms` for every one of `pids` to be gone; whether they all are. */
export async function allGone(pids: number[], ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until && pids.some(running)) await new Promise((r) => setTimeout(r, 20));
  return !pids.some(running);
}
