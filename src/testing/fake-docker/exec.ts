/**
 * The fake daemon's containers and execs, and how an exec runs: a host child process in its own
 * session (runc's stage-2 setsid), under `prlimit` with the container's Ulimits, the container's
 * tmpfs paths in its argv, env and working dir rewritten to the container's dirs; its stdout and
 * stderr framed on the hijacked connection (stdcopy), its stdin read from it.
 */
import { type ChildProcess, spawn } from "node:child_process";
import type { Socket } from "node:net";
import { constants } from "node:os";
import { join } from "node:path";
import { asList, type ContainerCreate, type ExecCreate } from "./contract.js";

export interface FakeContainer {
  id: string;
  name: string;
  config: ContainerCreate;
  dir: string;
  running: boolean;
  oomKilled: boolean;
  execs: Set<ChildProcess>;
}

export interface FakeExec {
  id: string;
  container: FakeContainer;
  config: ExecCreate;
  running: boolean;
  exitCode: number | null;
  pid: number;
  started: boolean;
}

/** Spawns the exec's command; with a hijacked socket, streams its output there (framed). */
export function runExec(exec: FakeExec, io: { socket: Socket; stdin: Buffer } | undefined): void {
  const c = exec.container;
  exec.started = true;
  exec.running = true;
  const rewrite = (s: string) => rewritePaths(s, c);
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOSTNAME: c.id.slice(0, 12),
  };
  for (const kv of [...(c.config.Env ?? []), ...(exec.config.Env ?? [])]) {
    const eq = kv.indexOf("=");
    if (eq > 0) env[kv.slice(0, eq)] = rewrite(kv.slice(eq + 1));
  }
  const cwd = hostPath(exec.config.WorkingDir || c.config.WorkingDir || "/", c);
  const argv = [...ulimitArgs(c), ...asList(exec.config.Cmd).map(rewrite)];
  const attachIn = exec.config.AttachStdin === true && io !== undefined;
  const child = spawn(argv[0] as string, argv.slice(1), {
    cwd,
    env,
    detached: true,
    stdio: [attachIn ? "pipe" : "ignore", "pipe", "pipe"],
  });
  exec.pid = child.pid ?? 0;
  c.execs.add(child);
  const frame = (stream: number, data: Buffer) => {
    if (!io || io.socket.destroyed) return;
    const header = Buffer.alloc(8);
    header[0] = stream;
    header.writeUInt32BE(data.length, 4);
    io.socket.write(Buffer.concat([header, data]));
  };
  const end = () => {
    exec.running = false;
    c.execs.delete(child);
    io?.socket.end();
  };
  child.stdout?.on("data", (d: Buffer) => exec.config.AttachStdout && frame(1, d));
  child.stderr?.on("data", (d: Buffer) => exec.config.AttachStderr && frame(2, d));
  if (attachIn && child.stdin && io) {
    child.stdin.on("error", () => {});
    if (io.stdin.length) child.stdin.write(io.stdin);
    io.socket.on("data", (d: Buffer) => child.stdin?.write(d));
    io.socket.on("end", () => child.stdin?.end());
  }
  io?.socket.on("error", () => {});
  child.on("error", (err: NodeJS.ErrnoException) => {
    exec.exitCode = err.code === "ENOENT" ? 127 : 126;
    const message = `OCI runtime exec failed: exec failed: unable to start container process: ${err.message}: unknown\r\n`;
    frame(1, Buffer.from(message));
    end();
  });
  child.on("exit", (code, signal) => {
    // As the runtime reports it: a signal's death is 128 + its number.
    exec.exitCode = code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0);
    exec.running = false;
  });
  child.on("close", end);
}

/** SIGKILL to the process group an exec leads. */
export function killGroup(p: ChildProcess): void {
  try {
    if (p.pid) process.kill(-p.pid, "SIGKILL");
  } catch {}
}

/** `prlimit` with the container's Ulimits (cpu, fsize, nofile, ...) in front of the command. */
function ulimitArgs(c: FakeContainer): string[] {
  const names: Record<string, string> = {
    cpu: "cpu",
    fsize: "fsize",
    nofile: "nofile",
    nproc: "nproc",
    core: "core",
    stack: "stack",
  };
  const args = (c.config.HostConfig?.Ulimits ?? [])
    .filter((u) => names[u.Name])
    .map((u) => `--${names[u.Name]}=${u.Soft}:${u.Hard}`);
  return args.length ? ["prlimit", ...args, "--"] : [];
}

/** The container's tmpfs mount paths inside a string → the container's dirs for them. */
function rewritePaths(s: string, c: FakeContainer): string {
  const mounts = Object.keys(c.config.HostConfig?.Tmpfs ?? {}).sort((a, b) => b.length - a.length);
  if (mounts.length === 0) return s;
  const alt = mounts.map((m) => m.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|");
  // One pass, so that a replacement (the fake's dirs live under the host's /tmp) is never rewritten again.
  return s.replace(
    new RegExp(`(^|[\\s"'=:])(${alt})(?=$|[/\\s"';:])`, "g"),
    (_m, pre: string, mount: string) => `${pre}${join(c.dir, "tmpfs", mount)}`,
  );
}

/** A container path → the host dir: a tmpfs mount's dir, else under rootfs/. */
function hostPath(p: string, c: FakeContainer): string {
  for (const mount of Object.keys(c.config.HostConfig?.Tmpfs ?? {})) {
    if (p === mount || p.startsWith(`${mount}/`))
      return join(c.dir, "tmpfs", mount, p.slice(mount.length));
  }
  return join(c.dir, "rootfs", p);
}
