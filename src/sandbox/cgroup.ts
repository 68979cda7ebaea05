/**
 * A cgroup per sandbox, for the limits rlimits cannot give: memory of all its processes together
 * (tmpfs files included) and the number of processes, counted per sandbox rather than per user.
 * Both cgroup versions: v2 (one unified hierarchy) and v1 (a `memory` and a `pids` hierarchy).
 * Each sandbox's cgroup is made under the cgroup this process is in, which must be writable (root,
 * or a delegated subtree); `CgroupParent.detect()` says whether it is, and the bwrap backend falls
 * back to rlimits when not.
 */
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";

const MOUNT = "/sys/fs/cgroup";

interface Dirs {
  version: 1 | 2;
  memory: string;
  pids: string;
}

export class SandboxCgroup {
  constructor(private readonly dirs: Dirs) {}

  /** Put `pid` (and so every process it starts from now on) in the cgroup. */
  join(pid: number): void {
    const dirs = new Set([this.dirs.memory, this.dirs.pids]);
    for (const dir of dirs) writeFileSync(join(dir, "cgroup.procs"), String(pid));
  }

  /** Processes the kernel's OOM killer has killed in this cgroup so far. */
  oomKills(): number {
    const file = this.dirs.version === 2 ? "memory.events" : "memory.oom_control";
    return counter(join(this.dirs.memory, file), "oom_kill");
  }

  /** Forks refused for the pids limit so far. */
  forksRefused(): number {
    return counter(join(this.dirs.pids, "pids.events"), "max");
  }

  /** Kill what is left in it and remove it (after the sandbox's pid 1 is dead). */
  async remove(): Promise<void> {
    for (const dir of new Set([this.dirs.memory, this.dirs.pids])) {
      for (let attempt = 0; ; attempt++) {
        try {
          for (const pid of readFileSync(join(dir, "cgroup.procs"), "utf8").split("\n")) {
            if (pid) process.kill(Number(pid), "SIGKILL");
          }
          rmdirSync(dir);
          break;
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code;
          if (code === "ENOENT") break;
          if (attempt >= 100) throw error;
          await new Promise((r) => setTimeout(r, 10));
        }
      }
    }
  }
}

export class CgroupParent {
  private constructor(private readonly dirs: Dirs) {}

  /** The writable parent cgroups of this process, or why there are none. */
  static detect(): CgroupParent | string {
    let own: string;
    try {
      own = readFileSync("/proc/self/cgroup", "utf8");
    } catch {
      return "no /proc/self/cgroup";
    }
    const lines = own
      .trim()
      .split("\n")
      .map((l) => l.split(":"));
    const pathOf = (controller: string) =>
      lines.find(([, list]) => list?.split(",").includes(controller))?.[2];
    const memory = pathOf("memory");
    const pids = pathOf("pids");
    let dirs: Dirs;
    if (memory !== undefined && pids !== undefined) {
      dirs = { version: 1, memory: join(MOUNT, "memory", memory), pids: join(MOUNT, "pids", pids) };
    } else {
      const unified = lines.find(([id]) => id === "0")?.[2];
      if (unified === undefined) return "no memory and pids cgroup controllers";
      const dir = join(MOUNT, unified);
      let enabled: string;
      try {
        enabled = readFileSync(join(dir, "cgroup.subtree_control"), "utf8");
      } catch {
        return `no cgroup v2 hierarchy at ${dir}`;
      }
      if (!/\bmemory\b/.test(enabled) || !/\bpids\b/.test(enabled)) {
        return `${dir}/cgroup.subtree_control does not enable memory and pids`;
      }
      dirs = { version: 2, memory: dir, pids: dir };
    }
    const probe = new CgroupParent(dirs);
    try {
      const cg = probe.create(`rllm-probe-${process.pid}`, { memoryBytes: 64 << 20, pids: 8 });
      void cg.remove();
    } catch (error) {
      return `cannot make a cgroup under ${dirs.memory}: ${(error as Error).message}`;
    }
    return probe;
  }

  /**
   * Remove the cgroups `prefix-<pid>-…` left by processes that are gone (an rllm killed with
   * SIGKILL cannot remove its own; their processes died with their sandboxes' init).
   */
  sweep(prefix: string): void {
    for (const parent of new Set([this.dirs.memory, this.dirs.pids])) {
      for (const name of readdirSync(parent)) {
        const owner = new RegExp(`^${prefix}-(\\d+)-`).exec(name)?.[1];
        if (owner === undefined || existsSync(`/proc/${owner}`)) continue;
        try {
          rmdirSync(join(parent, name));
        } catch {
          // still has processes, or taken meanwhile: left for the next sweep
        }
      }
    }
  }

  create(name: string, limits: { memoryBytes: number; pids: number }): SandboxCgroup {
    const dirs: Dirs = {
      version: this.dirs.version,
      memory: join(this.dirs.memory, name),
      pids: join(this.dirs.pids, name),
    };
    for (const dir of new Set([dirs.memory, dirs.pids])) mkdirSync(dir);
    if (dirs.version === 2) {
      writeFileSync(join(dirs.memory, "memory.max"), String(limits.memoryBytes));
      // No swap beyond the limit, where swap is accounted at all.
      if (existsSync(join(dirs.memory, "memory.swap.max"))) {
        writeFileSync(join(dirs.memory, "memory.swap.max"), "0");
      }
    } else {
      writeFileSync(join(dirs.memory, "memory.limit_in_bytes"), String(limits.memoryBytes));
      // Memory + swap to the same bound, where swap is accounted at all.
      if (existsSync(join(dirs.memory, "memory.memsw.limit_in_bytes"))) {
        writeFileSync(join(dirs.memory, "memory.memsw.limit_in_bytes"), String(limits.memoryBytes));
      }
    }
    writeFileSync(join(dirs.pids, "pids.max"), String(limits.pids));
    return new SandboxCgroup(dirs);
  }
}

function counter(file: string, key: string): number {
  try {
    const line = readFileSync(file, "utf8")
      .split("\n")
      .find((l) => l.startsWith(`${key} `));
    return line ? Number(line.split(" ")[1]) : 0;
  } catch {
    return 0;
  }
}
