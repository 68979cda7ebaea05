/** Test helpers about processes: kill(pid, 0), and /proc (Linux) to tell a zombie from a process. */
import { readdirSync, readFileSync } from "node:fs";

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

/** The live (non-zombie) processes whose parent is `pid`, from /proc (Linux). */
export function childPids(pid: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, "utf8");
    } catch {
      continue; // gone meanwhile
    }
    const [state, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(ppid) === pid && state !== "Z") out.push(Number(name));
  }
  return out;
}
