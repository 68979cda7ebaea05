/**
 * The bubblewrap sandbox: the default on Linux, with nothing to install but `bwrap`.
 *
 * A sandbox is one long-running `bwrap` whose pid 1 is an init (`bwrap-init.ts`, the host's node)
 * that runs commands on request, so files and background processes live from
 * create() to close(), as in a container; reset() returns it to a fresh state for the next user. What the sandboxed code gets:
 * - namespaces: user, pid, network (a loopback of its own unless `network`), ipc, uts, mount and
 *   cgroup; no capabilities (`--cap-drop ALL`), a session of its own (no TIOCSTI into ours);
 * - files: /usr and the system dirs read-only (the host's tools), a few /etc files (the loader's
 *   cache, alternatives, certificates; passwd/group/hosts of its own), a fresh /proc of its pid
 *   namespace, a minimal read-only /dev, and tmpfs mounts sharing `diskMb` at /work (the work
 *   dir, 3/4), /tmp and /dev/shm (1/8 each), and a message-queue fs at /dev/mqueue — memory-backed,
 *   private, gone at close; the spec's links as symlinks on the read-only root into /work (their
 *   dirs made there, again at each reset). Nothing of $HOME, the environment or other
 *   users' files is mounted;
 * - a user: when rllm runs as root, bwrap runs as nobody (65534), so that no file owned by root on
 *   the host is the sandbox's own; otherwise as the calling user, inside a user namespace;
 * - limits: per process, through `prlimit` — RLIMIT_CPU (cpuSeconds), RLIMIT_DATA (memoryMb;
 *   it does not count memfd or System V shared memory, so without a cgroup memory is bounded per
 *   process and per allocation kind, not for the sandbox as a whole),
 *   RLIMIT_FSIZE (fileMb), RLIMIT_NOFILE (openFiles), no core files; per sandbox, with a cgroup
 *   (`cgroup.ts`) where one can be made: memory.max = memoryMb (+ INIT_MEMORY_MB for the init) and
 *   pids.max = pids (+ INIT_TASKS). Without a cgroup, RLIMIT_NPROC = pids + INIT_TASKS stands in
 *   (Linux ≥ 5.14 counts it per user namespace, so per sandbox);
 * - close(): SIGKILL to the init from outside; the kernel then kills every process of the pid
 *   namespace (setsid and double-forked daemons included), and the tmpfs mounts go with it.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  chmodSync,
  closeSync,
  copyFileSync,
  existsSync,
  lstatSync,
  openSync,
  readdirSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { INIT_SOURCE } from "./bwrap-init.js";
import { BwrapSession, type InitChannel, InitChannelImpl } from "./bwrap-session.js";
import { CgroupParent, type SandboxCgroup } from "./cgroup.js";
import { BWRAP_CAPABILITIES, type BwrapSandboxConfig } from "./config.js";
import { ownedTempDir, sweepOwnedTempDirs } from "./owned-dirs.js";
import { seccompFilter } from "./seccomp.js";
import { checkLinks, resolveSpec, workPath } from "./spec.js";
import {
  type Sandbox,
  type SandboxBackend,
  SandboxError,
  type SandboxLimits,
  type SandboxSpec,
} from "./types.js";

/** Memory and tasks the init (node) itself needs, on top of the sandbox's budget. */
const INIT_MEMORY_MB = 96;
const INIT_TASKS = 16;
/** Seconds from spawning bwrap to the init's "ready" (node's start-up, on a loaded machine). */
const READY_TIMEOUT_S = 30;
const NOBODY = 65534;
/** Sandbox cgroups are `rllm-sandbox-<our pid>-<id>`: a later start removes those of dead pids. */
const CGROUP_PREFIX = "rllm-sandbox";
/** The sandbox's user inside its user namespace (host files owned by others show as nobody). */
const SANDBOX_UID = 1000;
/** Where the init's source and its node (an execute-only copy: see writeSupportDir) are mounted. */
const INIT_PATH = "/.rllm-init.js";
const INIT_NODE = "/.rllm-node";
/** The support dirs are `rllm-sandbox-<our pid>-…` in the temp dir: a later start removes those of dead pids. */
const SUPPORT_PREFIX = "rllm-sandbox-";
const SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin";
/** /etc entries the host's tools need, mounted read-only when they exist. */
const ETC_SHARED = [
  "ld.so.cache",
  "ld.so.conf",
  "ld.so.conf.d",
  "alternatives",
  "localtime",
  "ssl",
  "ca-certificates",
  "ca-certificates.conf",
  "mime.types",
];
/** Top-level system dirs: bound read-only, or recreated as the symlinks they are (merged /usr). */
const SYSTEM_DIRS = ["bin", "sbin", "lib", "lib32", "lib64", "libx32"];

const SECCOMP = seccompFilter();
/** Paths a link may not shadow or sit in: the sandbox's own mounts. */
const RESERVED = [
  "/usr",
  ...SYSTEM_DIRS.map((d) => `/${d}`),
  "/etc",
  "/proc",
  "/dev",
  "/tmp",
  "/work",
  INIT_PATH,
  INIT_NODE,
];

export class BwrapBackend implements SandboxBackend {
  readonly name = "bwrap";
  readonly capabilities = BWRAP_CAPABILITIES;
  private readonly live = new Set<Sandbox>();

  private constructor(
    private readonly config: BwrapSandboxConfig,
    private readonly prlimit: string,
    private readonly cgroups: CgroupParent | null,
    private readonly supportDir: string,
    private readonly runAs: { uid: number; gid: number } | undefined,
  ) {}

  /** Check that bwrap and prlimit run here and pick how limits are enforced. */
  static async start(config: BwrapSandboxConfig): Promise<BwrapBackend> {
    if (process.platform !== "linux") {
      throw new SandboxError(
        `the bwrap sandbox backend needs Linux (this is ${process.platform}); use sandbox.backend "docker"`,
      );
    }
    try {
      execFileSync(config.bwrap, ["--version"], { stdio: "pipe" });
    } catch {
      throw new SandboxError(
        `bubblewrap (${config.bwrap}) does not run: install it (Debian/Ubuntu: apt-get install bubblewrap) or set sandbox.bwrap to its path`,
      );
    }
    const prlimit = ["/usr/bin/prlimit", "/bin/prlimit"].find((p) => existsSync(p));
    if (!prlimit) throw new SandboxError("prlimit (util-linux) is missing: install util-linux");
    let cgroups: CgroupParent | null = null;
    if (config.limitsBy !== "rlimit") {
      const found = CgroupParent.detect();
      if (typeof found === "string") {
        if (config.limitsBy === "cgroup") {
          throw new SandboxError(
            `sandbox.limitsBy is "cgroup" but no cgroup can be made here (${found}); use "rlimit" or "auto"`,
          );
        }
      } else {
        cgroups = found;
        cgroups.sweep(CGROUP_PREFIX);
      }
    }
    const runAs = process.getuid?.() === 0 ? { uid: NOBODY, gid: NOBODY } : undefined;
    sweepOwnedTempDirs(SUPPORT_PREFIX); // of rllm processes that died without closing their backend
    const supportDir = writeSupportDir();
    const backend = new BwrapBackend(config, prlimit, cgroups, supportDir, runAs);
    // One sandbox now, so that a host without user namespaces fails here with bwrap's reason.
    const probe = await backend.create();
    await probe.close();
    return backend;
  }

  /** "cgroup" or "rlimit": how the memory and process limits are held. */
  get limitsBy(): "cgroup" | "rlimit" {
    return this.cgroups ? "cgroup" : "rlimit";
  }

  async create(spec: SandboxSpec = {}): Promise<Sandbox> {
    const limits = resolveSpec(this.name, this.capabilities, {
      ...spec,
      limits: { ...this.config.limits, ...spec.limits },
      hostPaths: [...this.config.hostPaths, ...(spec.hostPaths ?? [])],
    });
    const network = spec.network ?? this.config.network;
    // A snapshot with a bad path or a bad link is refused before anything starts.
    for (const f of spec.snapshot?.files ?? []) workPath(f.path);
    const hostPaths = [...this.config.hostPaths, ...(spec.hostPaths ?? [])];
    const links = checkLinks(spec.links, [...RESERVED, ...hostPaths]);
    const id = randomBytes(6).toString("hex");
    const cgroup = this.cgroups?.create(`${CGROUP_PREFIX}-${process.pid}-${id}`, {
      memoryBytes: (limits.memoryMb + INIT_MEMORY_MB) * 2 ** 20,
      pids: limits.pids + INIT_TASKS,
    });
    const fds: number[] = [];
    let child: ChildProcess | undefined;
    let sandbox: BwrapSession | undefined;
    try {
      const args = this.args(limits, network, hostPaths, links, fds);
      child = spawn(this.config.bwrap, args, {
        stdio: ["pipe", "pipe", "pipe", "pipe", "pipe", "pipe", ...fds],
        env: {},
        ...this.runAs,
      });
      const seccompPipe = (child.stdio as unknown[])[5] as NodeJS.WritableStream;
      if (SECCOMP) seccompPipe.end(SECCOMP);
      else seccompPipe.end();
      const init = await startInit(child, cgroup);
      const made: BwrapSession = new BwrapSession(id, init, {
        limits,
        env: { ...baseEnv(), ...spec.env },
        prlimit: this.prlimitArgs(limits),
        cgroup,
        snapshot: spec.snapshot,
        linkDirs: links.map(([, target]) => target),
        onClose: () => this.live.delete(made),
      });
      sandbox = made;
      this.live.add(made);
      await made.prepare();
      return made;
    } catch (error) {
      if (sandbox) await sandbox.close();
      else {
        child?.kill("SIGKILL");
        await cgroup?.remove();
      }
      throw error;
    } finally {
      for (const fd of fds) closeSync(fd);
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.live].map((s) => s.close()));
    rmSync(this.supportDir, { recursive: true, force: true });
  }

  private args(
    limits: SandboxLimits,
    network: boolean,
    hostPaths: string[],
    links: [string, string][],
    fds: number[],
  ): string[] {
    const mib = (n: number) => String(Math.ceil(n * 2 ** 20));
    const args = ["--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent"];
    args.push("--new-session", "--as-pid-1");
    if (SECCOMP) args.push("--seccomp", "5");
    args.push("--cap-drop", "ALL", "--hostname", "sandbox");
    args.push("--uid", String(SANDBOX_UID), "--gid", String(SANDBOX_UID));
    if (network) args.push("--share-net");
    args.push("--ro-bind", "/usr", "/usr");
    for (const dir of SYSTEM_DIRS) {
      const path = `/${dir}`;
      if (!existsSync(path)) continue;
      if (lstatSync(path).isSymbolicLink()) args.push("--symlink", readlinkSync(path), path);
      else args.push("--ro-bind", path, path);
    }
    args.push("--perms", "0755", "--dir", "/etc");
    const etc = [...ETC_SHARED, ...readdirSync("/etc").filter((n) => /^python3/.test(n))];
    if (network) etc.push("resolv.conf", "nsswitch.conf", "gai.conf");
    for (const name of etc)
      if (existsSync(`/etc/${name}`)) args.push("--ro-bind", `/etc/${name}`, `/etc/${name}`);
    for (const name of ["passwd", "group", "hosts", ...(network ? [] : ["nsswitch.conf"])]) {
      args.push("--ro-bind", join(this.supportDir, name), `/etc/${name}`);
    }
    args.push("--proc", "/proc", "--dev", "/dev");
    // diskMb in all: 3/4 for the work dir, 1/8 each for /tmp and /dev/shm.
    args.push("--perms", "1777", "--size", mib(limits.diskMb / 8), "--tmpfs", "/dev/shm");
    args.push("--perms", "1777", "--size", mib(limits.diskMb / 8), "--tmpfs", "/tmp");
    args.push("--size", mib((limits.diskMb * 3) / 4), "--tmpfs", "/work");
    args.push("--mqueue", "/dev/mqueue");
    // Binds by descriptor, opened here: bwrap (as nobody) may not be able to walk to them.
    for (const path of hostPaths) {
      let fd: number;
      try {
        fd = openSync(path, "r");
      } catch (error) {
        throw new SandboxError(
          `sandbox host path ${path} cannot be opened (${(error as Error).message}); fix sandbox.hostPaths`,
        );
      }
      fds.push(fd);
      args.push("--ro-bind-fd", String(6 + fds.length - 1), path);
    }
    args.push("--chdir", "/work", "--clearenv", "--setenv", "PATH", SANDBOX_PATH);
    args.push("--info-fd", "3", "--block-fd", "4");
    args.push("--ro-bind", join(this.supportDir, "init.js"), INIT_PATH);
    args.push("--ro-bind", join(this.supportDir, "node"), INIT_NODE);
    // Links: their parents made world-readable (bwrap's own are 0700), each a symlink into /work.
    const made = new Set<string>();
    for (const [path, target] of links) {
      const parts = path.split("/").slice(1, -1);
      for (let i = 1; i <= parts.length; i++) {
        const dir = `/${parts.slice(0, i).join("/")}`;
        if (!made.has(dir)) args.push("--perms", "0755", "--dir", dir);
        made.add(dir);
      }
      args.push("--symlink", `/work/${target}`, path);
    }
    // The root (bwrap's own tmpfs) and /dev read-only, last: writes go to /work, /tmp, /dev/shm
    // and /dev/mqueue only (bwrap's remount is not recursive).
    args.push("--remount-ro", "/dev", "--remount-ro", "/");
    args.push("--", INIT_NODE, INIT_PATH);
    return args;
  }

  /** prlimit's program and arguments for every command of a sandbox with `limits`. */
  private prlimitArgs(limits: SandboxLimits): string[] {
    const mib = (n: number) => Math.ceil(n * 2 ** 20);
    const cpu = Math.ceil(limits.cpuSeconds);
    const args = [
      this.prlimit,
      `--cpu=${cpu}:${cpu + 1}`,
      `--data=${mib(limits.memoryMb)}`,
      `--fsize=${mib(limits.fileMb)}`,
      `--nofile=${limits.openFiles}`,
      "--core=0",
    ];
    // RLIMIT_NPROC is counted per user namespace (Linux ≥ 5.14), so per sandbox: its processes
    // and the init's threads.
    if (!this.cgroups) args.push(`--nproc=${limits.pids + INIT_TASKS}`);
    return args;
  }
}

/** Spawned bwrap → its init running: join the cgroup before anything runs, wait for "ready". */
async function startInit(
  child: ChildProcess,
  cgroup: SandboxCgroup | undefined,
): Promise<InitChannel> {
  let stderr = "";
  for (const stream of child.stdio) stream?.on("error", () => {});
  child.stderr?.setEncoding("utf8").on("data", (d: string) => {
    stderr = (stderr + d).slice(-4000);
  });
  const exited = new Promise<never>((_, reject) => {
    child.once("error", (e) => reject(new SandboxError(`bwrap did not start: ${e.message}`)));
    child.once("exit", (code, signal) =>
      reject(
        new SandboxError(
          `bwrap exited (${signal ?? `code ${code}`}) before the sandbox was ready: ${stderr.trim() || "no message"}`,
        ),
      ),
    );
  });
  exited.catch(() => {});
  const info = child.stdio[3] as NodeJS.ReadableStream;
  let text = "";
  const pid = await Promise.race([
    exited,
    new Promise<number>((resolve) => {
      info.setEncoding("utf8");
      info.on("data", (d: string) => {
        text += d;
        // The number whole: a chunk may end inside it.
        const m = /"child-pid":\s*(\d+)[,\s}]/.exec(text);
        if (m) resolve(Number(m[1]));
      });
    }),
  ]);
  try {
    cgroup?.join(pid);
  } catch (error) {
    // ESRCH: bwrap failed after reporting the pid; its own message says why.
    const gone = await Promise.race([
      exited.catch((e: Error) => e),
      new Promise((r) => setTimeout(r, 500)),
    ]);
    child.kill("SIGKILL");
    if (gone instanceof Error) throw gone;
    throw new SandboxError(`cannot put the sandbox in its cgroup: ${(error as Error).message}`);
  }
  (child.stdio[4] as NodeJS.WritableStream).end("go");
  const channel = new InitChannelImpl(child, pid, () => stderr);
  let timer: NodeJS.Timeout | undefined;
  const slow = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new SandboxError(
            `the sandbox's init was not ready after ${READY_TIMEOUT_S} s: ${stderr.trim() || "no message"}`,
          ),
        ),
      READY_TIMEOUT_S * 1000,
    );
  });
  try {
    await Promise.race([exited, slow, channel.ready]);
  } finally {
    clearTimeout(timer);
  }
  return channel;
}

/** What every command's environment starts from: nothing of the host's. */
function baseEnv(): Record<string, string> {
  return {
    PATH: SANDBOX_PATH,
    HOME: "/work",
    TMPDIR: "/tmp",
    LANG: "C.UTF-8",
    USER: "sandbox",
  };
}

/**
 * The host files every sandbox of a backend mounts: passwd, group and hosts of its own, the
 * init's source, and a copy of this node that the sandbox's user may execute but not read (mode
 * 0111, on a read-only mount): a process started from a file it cannot read is not dumpable, so
 * the commands, though the same user, cannot ptrace the init, read or write its memory or take
 * its descriptors.
 */
function writeSupportDir(): string {
  const dir = ownedTempDir(SUPPORT_PREFIX);
  chmodSync(dir, 0o755);
  copyFileSync(process.execPath, join(dir, "node"));
  chmodSync(join(dir, "node"), 0o111);
  const files: Record<string, string> = {
    passwd: `nobody:x:${NOBODY}:${NOBODY}::/:/bin/false\nsandbox:x:${SANDBOX_UID}:${SANDBOX_UID}::/work:/bin/sh\n`,
    group: `nogroup:x:${NOBODY}:\nsandbox:x:${SANDBOX_UID}:\n`,
    hosts: "127.0.0.1 localhost sandbox\n::1 localhost\n",
    "nsswitch.conf": "passwd: files\ngroup: files\nhosts: files\n",
    "init.js": INIT_SOURCE,
  };
  for (const [name, text] of Object.entries(files))
    writeFileSync(join(dir, name), text, { mode: 0o644 });
  return dir;
}
