/**
 * The program a bwrap sandbox runs: the host's `node` with this source (mounted read-only at
 * /.rllm-init.js), speaking NDJSON with `bwrap-session.ts` on its stdin/stdout. It is plain
 * JavaScript in a string because it runs inside the sandbox, where neither this package nor a
 * TypeScript loader is mounted.
 *
 * It is the sandbox's pid 1 (no bwrap process stays in the sandbox holding the host's pipes), and
 * runs as the same user as the commands it runs. What keeps the commands out of it:
 * - the kernel delivers to a pid 1, from inside its namespace, only the signals it handles: `kill
 *   -9 -1`, SIGSTOP and the rest do not reach it;
 * - it is not dumpable: its node binary is a copy the sandbox's user may execute but not read
 *   (bwrap.ts), so the kernel refuses ptrace, /proc/1/mem, /proc/1/fd and pidfd_getfd on it to
 *   same-user processes; seccomp refuses ptrace, process_vm_* and pidfd_getfd besides;
 * - the host reads what it says as hostile input (bad lines, unknown ids and overlong lines end
 *   the sandbox), and bounds every request with a deadline of its own;
 * - it handles (by ignoring) every signal node would act on — SIGUSR1 would open its inspector;
 * - file transfers never follow a symlink out of /work (openInWork), so the init cannot be made
 *   to write or read its own /proc files or anything else on the commands' behalf;
 * - reset() hands the sandbox on only while the init's limits, priority, scheduling, affinity,
 *   timer slack, I/O priority and signal dispositions are what they were (a same-user process
 *   may change them without privilege, and later commands would inherit them), and no orphan is
 *   left as a zombie (node reaps only what it spawned): otherwise the pool makes a new one.
 * When it exits (its stdin closes: the host closed the sandbox or died), the kernel kills every
 * process of the namespace, detached ones included.
 *
 * Requests (host → init), one JSON object per line, each with an `id`:
 *   {op:"exec", id, argv, cwd, env, stdin (base64), prlimit: [program, ...args]}
 *   {op:"kill", id}                       SIGKILL to the exec's process group
 *   {op:"write", id, path, data, mode}    a regular file under /work (parents created)
 *   {op:"read", id, path, max} · {op:"list", id, max}   regular files only, at most max bytes
 *   {op:"mkdir", id, paths}               dirs under /work (parents created; the spec's link dirs)
 *   {op:"reset", id}                      every other process killed (refused if any was an
 *                                         orphan: it would stay a zombie), IPC objects and message
 *                                         queues removed, /work, /tmp and /dev/shm emptied, their
 *                                         modes, times and extended attributes restored
 * Events (init → host):
 *   {ev:"ready"} · {ev:"out", id, fd: 1|2, data} · {ev:"exit", id, code, signal, cpu}
 *   {ev:"done", id, data?, files?} · {ev:"error", id, message}
 * `exit` carries what node saw of the command's shell (the host reads 128 + n as signal n).
 *
 * Each command runs as `prlimit <rlimits> -- sh -c WRAP sh argv...` in a session of its own (its
 * process group is what "kill" kills). WRAP runs the command with fd 3 closed, then writes the
 * shell's `times` (the CPU seconds of the processes it waited for) to fd 3.
 */
export const INIT_SOURCE = String.raw`
"use strict";
const { spawn } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const WORK = "/work";
const WRAP = '"$@" 3>&-; s=$?; times >&3; exit $s';
const running = new Map();
// A pid 1 receives only the signals it handles: handle none that does anything. (SIGUSR1 would
// open node's inspector to the commands; a listener of our own replaces node's.)
for (const s of ["SIGTERM", "SIGINT", "SIGHUP", "SIGPIPE", "SIGUSR1", "SIGUSR2"]) process.on(s, () => {});

// Descriptors rllm's process inherited without close-on-exec would reach every command: close them.
for (const name of fs.readdirSync("/proc/self/fd")) {
  const fd = Number(name);
  if (fd < 3) continue;
  try {
    const flags = parseInt(/flags:\s*(\d+)/.exec(fs.readFileSync("/proc/self/fdinfo/" + fd, "utf8"))[1], 8);
    if (!(flags & 0o2000000)) fs.closeSync(fd);
  } catch {}
}
/**
 * What a command may change of the init without privilege — its limits, priority, scheduling,
 * CPU affinity, timer slack, I/O priority, signal dispositions — and every later command would
 * inherit: reset() hands the sandbox on only while this is what it was at start.
 */
function initState() {
  const status = fs.readFileSync("/proc/self/status", "utf8");
  const stat = fs.readFileSync("/proc/self/stat", "utf8").replace(/^.*\) /, "").split(" ");
  const ionice = require("node:child_process").spawnSync("ionice", ["-p", String(process.pid)], { encoding: "utf8" });
  return [
    fs.readFileSync("/proc/self/limits", "utf8"),
    os.getPriority(),
    status.split("\n").filter((l) => /^(Sig(Cgt|Ign|Blk)|Cpus_allowed_list|Mems_allowed_list):/.test(l)).join("\n"),
    stat[37] + " " + stat[38], // rt_priority, policy
    fs.readFileSync("/proc/self/timerslack_ns", "utf8"),
    ionice.stdout,
  ].join("\n");
}
const STATE_AT_START = initState();
/** The mounts commands write to, with the mode each starts with. */
const WRITABLE = { [WORK]: 0o755, "/tmp": 0o1777, "/dev/shm": 0o1777, "/dev/mqueue": 0o1777 };

function send(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
}

function inWork(rel) {
  const full = path.resolve(WORK, rel);
  if (full !== WORK && !full.startsWith(WORK + "/")) throw new Error("path outside the work dir: " + rel);
  return full;
}

/**
 * Opens a file of the work dir for a transfer, as commands cannot make the init reach elsewhere:
 * the last component is never followed (O_NOFOLLOW), and what was opened must be a regular file
 * under /work as the kernel names it (/proc/self/fd), whatever symlinks the parents went through.
 */
function openInWork(rel, flags) {
  const c = fs.constants;
  const fd = fs.openSync(inWork(rel), flags | c.O_NOFOLLOW | c.O_NONBLOCK, 0o600);
  try {
    const where = fs.readlinkSync("/proc/self/fd/" + fd);
    if (!where.startsWith(WORK + "/")) throw new Error(rel + " leads out of the work dir (to " + where + ")");
    if (!fs.fstatSync(fd).isFile()) throw new Error(rel + " is not a regular file");
    return fd;
  } catch (e) {
    fs.closeSync(fd);
    throw e;
  }
}

/** A regular file's bytes (see openInWork), refused over max. */
function readRegular(rel, max) {
  const fd = openInWork(rel, fs.constants.O_RDONLY);
  try {
    const size = fs.fstatSync(fd).size;
    if (size > max) throw new Error(rel + " has " + size + " bytes, over the " + max + " a transfer may move");
    return fs.readFileSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

function isZombie(pid) {
  try {
    return / Z /.test(fs.readFileSync("/proc/" + pid + "/stat", "utf8").replace(/^.*\) /, " "));
  } catch {
    return true;
  }
}

function emptyOut(full) {
  const st = fs.lstatSync(full);
  if (st.isDirectory()) {
    fs.chmodSync(full, 0o700);
    for (const name of fs.readdirSync(full)) emptyOut(path.join(full, name));
  }
  fs.rmSync(full, { force: true, recursive: true });
}

function cpuOf(times) {
  const lines = times.trim().split("\n");
  const m = [...(lines[1] || "").matchAll(/(\d+)m([\d.]+)s/g)];
  if (m.length !== 2) return null;
  return m.reduce((sum, x) => sum + Number(x[1]) * 60 + Number(x[2]), 0);
}

const ops = {
  exec(m) {
    const [program, ...limits] = m.prlimit;
    const cwd = inWork(m.cwd || ".");
    if (!fs.existsSync(cwd) || !fs.statSync(cwd).isDirectory()) {
      throw new Error("cwd " + m.cwd + " is not a directory in the sandbox's work dir");
    }
    const child = spawn(program, [...limits, "--", "/bin/sh", "-c", WRAP, "sh", ...m.argv], {
      cwd,
      env: m.env,
      stdio: ["pipe", "pipe", "pipe", "pipe"],
      detached: true,
    });
    let times = "";
    running.set(m.id, child);
    child.on("error", (e) => {
      running.delete(m.id);
      // Out of processes, memory or descriptors: the command could not start, as a shell says.
      if (["EAGAIN", "ENOMEM", "EMFILE", "ENFILE"].includes(e.code)) {
        const why = "sh: cannot fork: " + e.code + " (Resource temporarily unavailable)\n";
        send({ ev: "out", id: m.id, fd: 2, data: Buffer.from(why).toString("base64") });
        send({ ev: "exit", id: m.id, code: 126, signal: null, cpu: null });
      } else send({ ev: "error", id: m.id, message: String(e.message) });
    });
    child.stdin.on("error", () => {});
    child.stdin.end(Buffer.from(m.stdin || "", "base64"));
    child.stdout.on("data", (d) => send({ ev: "out", id: m.id, fd: 1, data: d.toString("base64") }));
    child.stderr.on("data", (d) => send({ ev: "out", id: m.id, fd: 2, data: d.toString("base64") }));
    child.stdio[3].on("data", (d) => (times += d));
    // "close" comes once the command has exited and its pipes are shut; a detached process may
    // hold them open, so "exit" reports on its own after a moment.
    const report = (code, signal) => {
      if (!running.delete(m.id)) return;
      for (const s of child.stdio) s && s.destroy();
      send({ ev: "exit", id: m.id, code, signal, cpu: cpuOf(times) });
    };
    child.on("close", report);
    child.on("exit", (code, signal) => setTimeout(() => report(code, signal), 50));
  },
  kill(m) {
    const child = running.get(m.id);
    if (child) {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {}
    }
  },
  // Back to the state of a new sandbox: every other process killed (kill(-1) from pid 1 reaches
  // all of the namespace), System V IPC objects and POSIX message queues removed (they
  // outlive their processes), and the writable mounts emptied, permissions taken away restored.
  reset(m) {
    if (initState() !== STATE_AT_START) {
      throw new Error("a command changed the init's limits, priority or scheduling: this sandbox cannot be reused");
    }
    const ours = new Set([...running.values()].map((c) => String(c.pid)));
    for (let round = 0; ; round++) {
      try {
        process.kill(-1, "SIGKILL");
      } catch {}
      const others = fs.readdirSync("/proc").filter((n) => /^\d+$/.test(n) && n !== String(process.pid));
      if (others.every((pid) => isZombie(pid))) {
        // Orphans killed here stay zombies of ours (node reaps only what it spawned), holding pids.
        const orphans = others.filter((pid) => !ours.has(pid));
        if (orphans.length) throw new Error(orphans.length + " orphaned processes would stay as zombies: this sandbox cannot be reused");
        break;
      }
      if (round > 200) throw new Error("processes survive SIGKILL: " + others.join(" "));
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
    }
    const ipc = spawn("ipcrm", ["--all"], { stdio: "ignore" });
    ipc.on("error", () => finish());
    ipc.on("exit", () => finish());
    function finish() {
      try {
        for (const [dir, mode] of Object.entries(WRITABLE)) {
          fs.chmodSync(dir, mode);
          for (const name of fs.readdirSync(dir)) emptyOut(path.join(dir, name));
          fs.utimesSync(dir, new Date(), new Date());
        }
        // Extended attributes of the mounts' roots (node has no call for them; python3 has).
        const xattrs = require("node:child_process").spawnSync(
          "python3",
          ["-S", "-I", "-c", "import os, sys\nfor d in sys.argv[1:]:\n    for a in os.listxattr(d): os.removexattr(d, a)", ...Object.keys(WRITABLE)],
          { stdio: "ignore" },
        );
        if (xattrs.status !== 0) throw new Error("the work dir's extended attributes could not be cleared (python3 " + (xattrs.error ? "missing" : "failed") + "): this sandbox cannot be reused");
        send({ ev: "done", id: m.id });
      } catch (e) {
        send({ ev: "error", id: m.id, message: String(e.message) });
      }
    }
  },
  write(m) {
    fs.mkdirSync(path.dirname(inWork(m.path)), { recursive: true });
    const c = fs.constants;
    const fd = openInWork(m.path, c.O_WRONLY | c.O_CREAT);
    try {
      fs.ftruncateSync(fd);
      fs.writeFileSync(fd, Buffer.from(m.data, "base64"));
      fs.fchmodSync(fd, m.mode);
    } finally {
      fs.closeSync(fd);
    }
    send({ ev: "done", id: m.id });
  },
  mkdir(m) {
    for (const rel of m.paths) {
      const full = inWork(rel);
      fs.mkdirSync(full, { recursive: true });
      const real = fs.realpathSync(full);
      if (real !== full || !fs.statSync(real).isDirectory()) throw new Error(rel + " is not a directory of the work dir (it leads to " + real + ")");
    }
    send({ ev: "done", id: m.id });
  },
  read(m) {
    send({ ev: "done", id: m.id, data: readRegular(m.path, m.max).toString("base64") });
  },
  list(m) {
    const files = [];
    let total = 0;
    const walk = (dir) => {
      for (const name of fs.readdirSync(dir).sort()) {
        const full = path.join(dir, name);
        const st = fs.lstatSync(full);
        const rel = path.relative(WORK, full);
        // Paths count too (empty files with long names cost the host memory, not the tmpfs).
        total += rel.length + 64;
        if (files.length >= 100000 || total > m.max) throw new Error("the work dir is over " + m.max + " bytes or 100000 files to list");
        if (st.isDirectory()) walk(full);
        else if (st.isFile()) {
          const data = readRegular(rel, m.max - total);
          total += data.length;
          files.push({ path: rel, mode: st.mode & 0o7777, data: data.toString("base64") });
        }
      }
    };
    walk(WORK);
    send({ ev: "done", id: m.id, files });
  },
};

// Lines from the host: scan each chunk once for newlines (no rescans of what is buffered).
let pending = [];
process.stdin.on("data", (chunk) => {
  let start = 0;
  for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10, start)) {
    pending.push(chunk.subarray(start, nl));
    const line = Buffer.concat(pending).toString("utf8");
    pending = [];
    start = nl + 1;
    let m;
    try {
      m = JSON.parse(line);
      ops[m.op](m);
    } catch (e) {
      send({ ev: "error", id: m && m.id, message: String((e && e.message) || e) });
    }
  }
  if (start < chunk.length) pending.push(chunk.subarray(start));
});
process.stdin.on("end", () => process.exit(0));
send({ ev: "ready" });
`;
