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
 * - reset() refuses to hand the sandbox on when the init's limits or priority were changed
 *   (prlimit/renice of a same-user process need no privilege), or when orphans it cannot reap
 *   (node waits for its own children only) have piled up past MAX_ZOMBIES.
 * When it exits (its stdin closes: the host closed the sandbox or died), the kernel kills every
 * process of the namespace, detached ones included.
 *
 * Requests (host → init), one JSON object per line, each with an `id`:
 *   {op:"exec", id, argv, cwd, env, stdin (base64), prlimit: [program, ...args]}
 *   {op:"kill", id}                       SIGKILL to the exec's process group
 *   {op:"write", id, path, data, mode}    a regular file under /work (parents created)
 *   {op:"read", id, path, max} · {op:"list", id, max}   regular files only, at most max bytes
 *   {op:"reset", id}                      every other process killed, IPC objects and message
 *                                         queues removed, /work, /tmp and /dev/shm emptied
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
const MAX_ZOMBIES = 32;
for (const s of ["SIGTERM", "SIGINT", "SIGHUP", "SIGPIPE"]) process.on(s, () => {});

// Descriptors rllm's process inherited without close-on-exec would reach every command: close them.
for (const name of fs.readdirSync("/proc/self/fd")) {
  const fd = Number(name);
  if (fd < 3) continue;
  try {
    const flags = parseInt(/flags:\s*(\d+)/.exec(fs.readFileSync("/proc/self/fdinfo/" + fd, "utf8"))[1], 8);
    if (!(flags & 0o2000000)) fs.closeSync(fd);
  } catch {}
}
const LIMITS_AT_START = fs.readFileSync("/proc/self/limits", "utf8");
const PRIORITY_AT_START = os.getPriority();

function send(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
}

function inWork(rel) {
  const full = path.resolve(WORK, rel);
  if (full !== WORK && !full.startsWith(WORK + "/")) throw new Error("path outside the work dir: " + rel);
  return full;
}

/** A regular file's bytes, refused when it is anything else (a FIFO would block) or over max. */
function readRegular(full, max) {
  const fd = fs.openSync(full, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw new Error(full + " is not a regular file");
    if (st.size > max) throw new Error(full + " has " + st.size + " bytes, over the " + max + " a transfer may move");
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
      send({ ev: "error", id: m.id, message: String(e.message) });
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
    if (fs.readFileSync("/proc/self/limits", "utf8") !== LIMITS_AT_START || os.getPriority() !== PRIORITY_AT_START) {
      throw new Error("a command changed the init's limits or priority: this sandbox cannot be reused");
    }
    for (let round = 0; ; round++) {
      try {
        process.kill(-1, "SIGKILL");
      } catch {}
      const others = fs.readdirSync("/proc").filter((n) => /^\d+$/.test(n) && n !== String(process.pid));
      if (others.every((pid) => isZombie(pid))) {
        if (others.length > MAX_ZOMBIES) throw new Error(others.length + " orphans left as zombies: this sandbox cannot be reused");
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
        for (const dir of [WORK, "/tmp", "/dev/shm", "/dev/mqueue"]) {
          for (const name of fs.readdirSync(dir)) emptyOut(path.join(dir, name));
        }
        send({ ev: "done", id: m.id });
      } catch (e) {
        send({ ev: "error", id: m.id, message: String(e.message) });
      }
    }
  },
  write(m) {
    const full = inWork(m.path);
    fs.mkdirSync(path.dirname(full), { recursive: true });
    const c = fs.constants;
    const fd = fs.openSync(full, c.O_WRONLY | c.O_CREAT | c.O_TRUNC | c.O_NONBLOCK, 0o600);
    try {
      if (!fs.fstatSync(fd).isFile()) throw new Error(full + " is not a regular file");
      fs.writeFileSync(fd, Buffer.from(m.data, "base64"));
      fs.fchmodSync(fd, m.mode);
    } finally {
      fs.closeSync(fd);
    }
    send({ ev: "done", id: m.id });
  },
  read(m) {
    send({ ev: "done", id: m.id, data: readRegular(inWork(m.path), m.max).toString("base64") });
  },
  list(m) {
    const files = [];
    let total = 0;
    const walk = (dir) => {
      for (const name of fs.readdirSync(dir).sort()) {
        const full = path.join(dir, name);
        const st = fs.lstatSync(full);
        if (st.isDirectory()) walk(full);
        else if (st.isFile()) {
          const data = readRegular(full, m.max - total);
          total += data.length;
          files.push({ path: path.relative(WORK, full), mode: st.mode & 0o7777, data: data.toString("base64") });
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
