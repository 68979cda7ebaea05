/**
 * The program a bwrap sandbox runs: the host's `node` with this source (mounted read-only at
 * /.rllm-init.js), speaking NDJSON with `bwrap.ts` on its stdin/stdout. It is plain JavaScript in a
 * string because it runs inside the sandbox, where neither this package nor a TypeScript loader is
 * mounted.
 *
 * It runs as pid 2, under bwrap's own pid 1, which reaps every orphan (node could not: a
 * long-lived sandbox would fill with zombies). The price: sandboxed code may kill it (`kill -9
 * -1`); the sandbox then ends, and that is what exec reports. It cannot be read or rewritten
 * (seccomp refuses ptrace and process_vm_*). When it exits (its stdin closes: the host closed the
 * sandbox or died), bwrap's pid 1 exits and the kernel kills every process of the namespace,
 * detached ones included.
 *
 * Requests (host → init), one JSON object per line, each with an `id`:
 *   {op:"exec", id, argv, cwd, env, stdin (base64), prlimit: [program, ...args]}
 *   {op:"kill", id}                       SIGKILL to the exec's process group
 *   {op:"write", id, path, data, mode}    a file under /work (parents created)
 *   {op:"read", id, path} · {op:"list", id}
 *   {op:"reset", id}                      every other process killed, IPC objects removed,
 *                                         /work, /tmp and /dev/shm emptied
 * Events (init → host):
 *   {ev:"ready"} · {ev:"out", id, fd: 1|2, data} · {ev:"exit", id, code, signal, cpu}
 *   {ev:"done", id, data?, files?} · {ev:"error", id, message}
 *
 * Each command runs as `prlimit <rlimits> -- sh -c WRAP sh argv...` in a session of its own (its
 * process group is what "kill" kills). WRAP runs the command with fd 3 closed, then writes the
 * shell's `times` (the CPU seconds of the processes it waited for) to fd 3. A command killed by a
 * signal while the shell lives shows as exit code 128 + n, which is read back as that signal.
 */
export const INIT_SOURCE = String.raw`
"use strict";
const { spawn } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");
const { signals } = require("node:os").constants;
const WORK = "/work";
const WRAP = '"$@" 3>&-; s=$?; times >&3; exit $s';
const signalName = new Map(Object.entries(signals).map(([name, n]) => [n, name]));
const running = new Map();
for (const s of ["SIGTERM", "SIGINT", "SIGHUP", "SIGPIPE"]) process.on(s, () => {});

function send(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
}

function inWork(rel) {
  const full = path.resolve(WORK, rel);
  if (full !== WORK && !full.startsWith(WORK + "/")) throw new Error("path outside the work dir: " + rel);
  return full;
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
      let sig = signal;
      let status = code;
      if (sig === null && code !== null && code > 128 && signalName.has(code - 128)) {
        sig = signalName.get(code - 128);
        status = null;
      }
      send({ ev: "exit", id: m.id, code: status, signal: sig, cpu: cpuOf(times) });
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
  // Back to the state of a new sandbox: every other process killed (kill(-1) reaches all of the
  // namespace but pid 1 and us), System V IPC objects removed (they outlive their processes), and
  // the writable mounts emptied, permissions the code took away restored first.
  reset(m) {
    for (let round = 0; ; round++) {
      try {
        process.kill(-1, "SIGKILL");
      } catch {}
      const others = fs
        .readdirSync("/proc")
        .filter((n) => /^\d+$/.test(n) && n !== "1" && n !== String(process.pid));
      if (others.every((pid) => isZombie(pid))) break;
      if (round > 200) throw new Error("processes survive SIGKILL: " + others.join(" "));
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
    }
    const ipc = spawn("ipcrm", ["--all"], { stdio: "ignore" });
    ipc.on("error", () => finish());
    ipc.on("exit", () => finish());
    function finish() {
      for (const dir of [WORK, "/tmp", "/dev/shm"]) {
        for (const name of fs.readdirSync(dir)) emptyOut(path.join(dir, name));
      }
      send({ ev: "done", id: m.id });
    }
  },
  write(m) {
    const full = inWork(m.path);
    fs.mkdirSync(path.dirname(full), { recursive: true });
    fs.writeFileSync(full, Buffer.from(m.data, "base64"));
    fs.chmodSync(full, m.mode);
    send({ ev: "done", id: m.id });
  },
  read(m) {
    send({ ev: "done", id: m.id, data: fs.readFileSync(inWork(m.path)).toString("base64") });
  },
  list(m) {
    const files = [];
    const walk = (dir) => {
      for (const name of fs.readdirSync(dir).sort()) {
        const full = path.join(dir, name);
        const st = fs.lstatSync(full);
        if (st.isDirectory()) walk(full);
        else if (st.isFile())
          files.push({ path: path.relative(WORK, full), mode: st.mode & 0o7777, data: fs.readFileSync(full).toString("base64") });
      }
    };
    walk(WORK);
    send({ ev: "done", id: m.id, files });
  },
};

let buffered = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  buffered += chunk;
  let nl;
  while ((nl = buffered.indexOf("\n")) >= 0) {
    const line = buffered.slice(0, nl);
    buffered = buffered.slice(nl + 1);
    let m;
    try {
      m = JSON.parse(line);
      ops[m.op](m);
    } catch (e) {
      send({ ev: "error", id: m && m.id, message: String((e && e.message) || e) });
    }
  }
});
process.stdin.on("end", () => process.exit(0));
send({ ev: "ready" });
`;
