/**
 * Hostile programs in the bwrap sandbox, for real: each is contained, and reported with the limit
 * or the denial that stopped it; the host is unchanged (no connection reached it, no file of it was
 * written or read, no process outlives close()).
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, afterEach, before, beforeEach, describe, it } from "node:test";
import { BwrapBackend } from "./bwrap.js";
import { BwrapSandboxConfigSchema } from "./config.js";
import { type ExecResult, type Sandbox, SandboxError } from "./types.js";

let backend: BwrapBackend;
let box: Sandbox;

/** The host pid of `sandbox`'s init: the child of one of this process's bwrap children. */
function hostInitOf(sandbox: Sandbox): number {
  const ppidOf = (pid: string) => {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  };
  const inits = readdirSync("/proc").filter((p) => {
    try {
      return (
        /^\d+$/.test(p) &&
        readFileSync(`/proc/${p}/cmdline`, "utf8").startsWith("/.rllm-node") &&
        ppidOf(String(ppidOf(p))) === process.pid
      );
    } catch {
      return false;
    }
  });
  assert.equal(inits.length, 1, `one sandbox of this process is open (${sandbox.id})`);
  return Number(inits[0]);
}

/** Host processes whose command line contains `marker`. */
function hostProcesses(marker: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, "utf8").includes(marker)) found.push(Number(name));
    } catch {
      // exited meanwhile
    }
  }
  return found;
}

const py = (code: string, o = {}) => box.exec(["python3", "-c", code], o);
const sh = (line: string, o = {}) => box.exec(["sh", "-c", line], o);

function failedWith(r: ExecResult, pattern: RegExp): void {
  assert.notEqual(r.exitCode, 0, `expected a failure, got ${JSON.stringify(r)}`);
  assert.match(r.stdout + r.stderr, pattern);
}

before(async () => {
  backend = await BwrapBackend.start(BwrapSandboxConfigSchema.parse({ backend: "bwrap" }));
});

/**
 * A fresh sandbox per test of the calling suite: what one hostile program leaves (sleeping
 * children holding the pids budget, a full disk) is not the next one's problem. (Hooks of the
 * root suite would run once per suite, not per test.)
 */
function freshBoxPerTest(): void {
  beforeEach(async () => {
    box = await backend.create({
      limits: { memoryMb: 256, pids: 64, diskMb: 32, fileMb: 8, cpuSeconds: 2 },
    });
  });
  afterEach(async () => {
    await box.close();
  });
}

after(async () => {
  await backend.close();
});

describe("the network", () => {
  freshBoxPerTest();
  let server: Server;
  let port = 0;
  let connections = 0;
  before(async () => {
    server = createServer((s) => {
      connections++;
      s.destroy();
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    port = (server.address() as { port: number }).port;
  });
  after(() => server.close());

  it("host loopback: a server listening on the host's 127.0.0.1 is unreachable", async () => {
    const r = await py(
      `import socket\nsocket.create_connection(("127.0.0.1", ${port}), timeout=3)`,
    );
    failedWith(r, /ConnectionRefusedError|Connection refused/);
    assert.equal(connections, 0);
  });

  it("outside: no route to any address", async () => {
    const r = await py(`import socket\nsocket.create_connection(("1.1.1.1", 80), timeout=3)`);
    failedWith(r, /Network is unreachable/);
  });

  it("DNS: no resolver, no name resolves", async () => {
    const r = await py(`import socket\nsocket.getaddrinfo("example.com", 80)`);
    failedWith(r, /gaierror/);
    assert.equal((await sh("test -e /etc/resolv.conf")).exitCode, 1);
  });
});

describe("resource limits", () => {
  freshBoxPerTest();
  it("fork bomb (fork until refused): stopped by the pids limit", async () => {
    const r = await py(
      "import os, sys, time\nn = 0\ntry:\n    while True:\n        if os.fork() == 0:\n            time.sleep(600)\n            os._exit(0)\n        n += 1\nexcept OSError as e:\n    print(n, e)\n    sys.exit(1)",
      { timeoutS: 20 },
    );
    assert.equal(r.exitCode, 1, r.stderr);
    assert.equal(r.limit, "pids");
    // The budget is the command's; the init's own threads come on top (INIT_TASKS).
    assert.ok(Number(r.stdout.split(" ")[0]) <= 64 + 16, r.stdout);
  });

  it("shell fork bomb: contained until the timeout, and the sandbox is still usable", async () => {
    const r = await sh("b(){ b | b & }; b; sleep 30", { timeoutS: 2 });
    assert.equal(r.timedOut, true, JSON.stringify(r));
    assert.equal(r.limit, "timeout");
    const s = await backend.create();
    try {
      assert.equal((await s.exec(["echo", "ok"])).stdout, "ok\n");
    } finally {
      await s.close();
    }
  });

  it("memory bomb (one allocation past memoryMb): refused, limit memory", async () => {
    const r = await py("x = bytearray(2 * 1024**3)");
    failedWith(r, /MemoryError/);
    assert.equal(r.limit, "memory");
  });

  it("memory bomb across processes (each under the per-process limit): the cgroup kills, limit memory", async (t) => {
    if (backend.limitsBy !== "cgroup") {
      t.skip(
        "no cgroup can be made here (not root, no delegated cgroup v2 subtree): rlimits bound memory per process only",
      );
      return;
    }
    const r = await py(
      "import os\nfor _ in range(5):\n    if os.fork() == 0:\n        b = bytearray(200 * 1024**2)\n        for i in range(0, len(b), 4096): b[i] = 1\n        os._exit(0)\nwhile True:\n    try:\n        pid, st = os.wait()\n    except ChildProcessError:\n        break\n    if os.WIFSIGNALED(st): os.kill(os.getpid(), os.WTERMSIG(st))",
      { timeoutS: 20 },
    );
    assert.equal(r.limit, "memory", JSON.stringify(r));
  });

  it("disk filler: the work dir fills up at diskMb, limit disk", async () => {
    const r = await py(
      "import os\nwith open('fill', 'wb') as f:\n    pass\ni = 0\nwhile True:\n    with open(f'fill{i}', 'wb') as f:\n        f.write(b'x' * 4 * 1024**2)\n    i += 1",
    );
    failedWith(r, /No space left on device/);
    assert.equal(r.limit, "disk");
    assert.ok(Number((await sh("du -sm /work | cut -f1")).stdout) <= 33);
    await sh("rm -f fill*");
  });

  it("a file larger than fileMb: SIGXFSZ, limit disk", async () => {
    const r = await sh("head -c 64M /dev/zero > big");
    assert.equal(r.signal, "SIGXFSZ");
    assert.equal(r.limit, "disk");
    await sh("rm -f big");
  });

  it("output flood: cut at maxOutputBytes and killed, limit output", async () => {
    const r = await box.exec(["yes"], { maxOutputBytes: 10_000, timeoutS: 20 });
    assert.equal(r.limit, "output");
    assert.equal(r.stdoutTruncated, true);
    assert.equal(r.stdout.length, 10_000);
    assert.ok(r.wallSeconds < 10);
  });

  it("sleep past the timeout: killed at the timeout", async () => {
    const r = await box.exec(["sleep", "30"], { timeoutS: 0.5 });
    assert.equal(r.timedOut, true, JSON.stringify(r));
    assert.equal(r.limit, "timeout");
    assert.equal(r.signal, "SIGKILL");
    assert.ok(r.wallSeconds >= 0.5 && r.wallSeconds < 5, String(r.wallSeconds));
  });

  it("CPU spin: RLIMIT_CPU stops it at cpuSeconds, limit cpu", async () => {
    const r = await py("while True: pass", { timeoutS: 30 });
    assert.equal(r.signal, "SIGXCPU");
    assert.equal(r.limit, "cpu");
    assert.ok(r.wallSeconds < 10);
  });
});

describe("escapes", () => {
  freshBoxPerTest();
  it("detached daemons (setsid, double fork) do not outlive close()", async () => {
    const s = await backend.create();
    const marker = "31337421";
    await s.exec(["sh", "-c", `setsid sleep ${marker} >/dev/null 2>&1 < /dev/null &`]);
    await s.exec([
      "python3",
      "-c",
      `import os\nif os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n        os.execvp("sleep", ["sleep", "${marker}.5"])\n    os._exit(0)`,
    ]);
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(hostProcesses(marker).length, 2, "both daemons run until close");
    await s.close();
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(hostProcesses(marker), []);
  });

  it("writes outside the work dir are refused (read-only root, /usr, /etc)", async () => {
    for (const path of ["/x", "/usr/x", "/etc/x", "/bin/x", "/home"]) {
      const r = await sh(`touch ${path}`);
      failedWith(r, /Read-only file system/);
    }
    assert.equal(existsSync("/x"), false);
    assert.equal(existsSync("/usr/x"), false);
  });

  it("the host's home and files are not there", async () => {
    const dir = mkdtempSync(join(tmpdir(), "rllm-secret-"));
    writeFileSync(join(dir, "secret"), "host secret");
    try {
      failedWith(await sh(`cat ${join(dir, "secret")}`), /No such file/);
      failedWith(await sh("ls /root"), /No such file/);
      failedWith(await sh("ls /home"), /No such file/);
      assert.equal((await sh("echo $HOME")).stdout, "/work\n");
    } finally {
      rmSync(dir, { recursive: true });
    }
  });

  it("the host's environment does not leak in", async () => {
    process.env.RLLM_HOSTILE_SECRET = "s3cr3t";
    try {
      const r = await box.exec(["env"]);
      assert.doesNotMatch(r.stdout, /s3cr3t|RLLM_HOSTILE_SECRET/);
      assert.deepEqual(
        r.stdout
          .split("\n")
          .filter(Boolean)
          .map((l) => l.split("=")[0])
          .sort(),
        ["HOME", "LANG", "PATH", "PWD", "TMPDIR", "USER"],
      );
    } finally {
      delete process.env.RLLM_HOSTILE_SECRET;
    }
  });

  it("other users' files: no shadow, and passwd lists the sandbox's user only", async () => {
    failedWith(await sh("cat /etc/shadow"), /No such file/);
    const passwd = (await sh("cat /etc/passwd")).stdout;
    assert.deepEqual(
      passwd
        .trim()
        .split("\n")
        .map((l) => l.split(":")[0]),
      ["nobody", "sandbox"],
    );
    assert.match((await box.exec(["id"])).stdout, /uid=1000\(sandbox\)/);
  });

  it("/proc shows the sandbox's processes only", async () => {
    const r = await sh("for p in /proc/[0-9]*; do cat $p/comm; done");
    assert.doesNotMatch(r.stdout, /node --import|systemd|bash\n/);
    assert.ok(r.stdout.trim().split("\n").length < 10, r.stdout);
    failedWith(await sh(`cat /proc/${process.pid}/environ`), /No such file/);
  });

  it("ptrace and process_vm_readv are refused (the init cannot be read or rewritten)", async () => {
    const r = await py(
      "import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\nprint(libc.ptrace(16, 1, 0, 0), os.strerror(ctypes.get_errno()))\nprint(libc.syscall(310, 1, 0, 0, 0, 0, 0), os.strerror(ctypes.get_errno()))",
    );
    assert.equal(r.stdout, "-1 Operation not permitted\n-1 Operation not permitted\n");
  });

  it("the kernel keyring, bpf and perf events are refused", async () => {
    const r = await py(
      "import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\nfor nr in (250, 321, 298):\n    print(libc.syscall(nr, 0, 0, 0, 0, 0), os.strerror(ctypes.get_errno()))",
    );
    assert.equal(r.stdout, "-1 Operation not permitted\n".repeat(3));
  });

  it("a symlink out of the work dir, made by the code, is never followed by a transfer", async () => {
    await sh(
      "ln -sfn /etc link && ln -sfn /etc/passwd pw && ln -sfn /proc/1/timerslack_ns slack && mkdir d && ln -sfn /proc/1 d/p",
    );
    await assert.rejects(
      box.upload([{ path: "link/evil", content: "x" }]),
      /leads out of the work dir|read-only|EROFS/i,
    );
    await assert.rejects(
      box.upload([{ path: "slack", content: "2000000000" }]),
      /ELOOP|symbolic link/i,
    );
    await assert.rejects(box.download("pw"), /ELOOP|symbolic link/i);
    await assert.rejects(box.download("d/p/maps"), /leads out of the work dir/);
    assert.equal(existsSync("/etc/evil"), false);
    assert.equal(readFileSync(`/proc/${hostInitOf(box)}/timerslack_ns`, "utf8"), "50000\n");
    await sh("rm -r link pw slack d");
  });

  it("`..` and absolute paths are refused before anything is written", async () => {
    for (const path of ["../x", "a/../../x", "/etc/passwd", "./x", ""]) {
      await assert.rejects(box.upload([{ path, content: "x" }]), SandboxError);
      await assert.rejects(box.download(path), SandboxError);
    }
    await assert.rejects(box.exec(["true"], { cwd: "../.." }), SandboxError);
  });

  it("killing its parent, or every process it may (kill -9 -1), ends that command only", async () => {
    const r1 = await sh("kill -9 $PPID; sleep 1");
    assert.equal(r1.signal, "SIGKILL");
    const r2 = await sh("kill -9 -1; sleep 1");
    assert.equal(r2.signal, "SIGKILL");
    await sh("kill -9 1; kill -STOP 1; kill -TERM 1");
    assert.equal((await box.exec(["echo", "alive"])).stdout, "alive\n");
  });

  it("limits cannot be raised from inside, and the cgroup tree is not there", async () => {
    failedWith(await sh("prlimit --pid $$ --cpu=unlimited:unlimited"), /Operation not permitted/);
    failedWith(await sh("ulimit -n 100000"), /./);
    failedWith(await sh("ls /sys/fs/cgroup"), /No such file/);
  });

  it("no new user namespaces, mounts or setuid", async () => {
    failedWith(await sh("unshare -U true"), /unshare failed/);
    failedWith(await sh("mount -t tmpfs none /work/m"), /./);
    failedWith(await sh("su -c id root"), /./);
    assert.equal((await sh("grep NoNewPrivs /proc/self/status")).stdout.trim(), "NoNewPrivs:\t1");
    assert.match((await sh("grep CapEff /proc/self/status")).stdout, /CapEff:\s+0000000000000000/);
  });

  it("no host devices", async () => {
    const r = await sh("ls /dev");
    assert.doesNotMatch(r.stdout, /\b(sda|nvme|mem|kmsg|vda)\b/);
    assert.match(r.stdout, /\bnull\b/);
  });

  it("the init is out of reach: no /proc/<init>/mem, fds or pidfd_getfd, so no forged results", async () => {
    const init = (
      await sh(
        "for p in /proc/[0-9]*; do grep -l rllm-init $p/cmdline 2>/dev/null; done | head -1 | cut -d/ -f3",
      )
    ).stdout.trim();
    assert.match(init, /^\d+$/, "the init is visible (and that is all)");
    const r = await py(
      `import ctypes, os\nfor what in ("mem", "fd", "environ"):\n    try:\n        os.listdir(f"/proc/${init}/{what}") if what == "fd" else open(f"/proc/${init}/{what}", "rb").read(1)\n        print(what, "OPEN")\n    except OSError as e:\n        print(what, e.errno)\nlibc = ctypes.CDLL(None, use_errno=True)\npidfd = libc.syscall(434, ${init}, 0)\nprint("getfd", libc.syscall(438, pidfd, 1, 0), ctypes.get_errno())\nprint("ptrace", libc.ptrace(16, ${init}, 0, 0), ctypes.get_errno())`,
    );
    assert.equal(r.stdout, "mem 13\nfd 13\nenviron 13\ngetfd -1 1\nptrace -1 1\n", r.stderr);
  });

  it("a descriptor rllm's process inherited does not reach the commands", async () => {
    // This test process's own descriptors without close-on-exec (its runner's pipes) are the case.
    const r = await sh("ls /proc/self/fd | sort -n | tr '\\n' ' '");
    assert.equal(r.stdout, "0 1 2 3 ", "stdin, stdout, stderr and ls's own directory handle only");
  });

  it("an init that stops answering costs the sandbox, not the caller: exec and files still settle", async () => {
    // Only the host can stop it (a pid 1 gets no SIGSTOP from inside): find it by its ancestry.
    const init = hostInitOf(box);
    process.kill(init, "SIGSTOP");
    const r = await box.exec(["sleep", "100"], { timeoutS: 1 });
    assert.equal(r.limit, "timeout");
    assert.ok(r.wallSeconds < 10, String(r.wallSeconds));
    assert.match(r.stderr, /outlived its kill/);
    await assert.rejects(box.exec(["true"]), /has ended/);
  });

  it("downloads: a FIFO, a device or a file over diskMb is refused, never read", async () => {
    await sh("mkfifo fifo; ln -s /dev/zero zero; head -c 1M /dev/zero > small");
    await assert.rejects(box.download("fifo"), /not a regular file/);
    await assert.rejects(box.download("zero"), /ELOOP|symbolic link/);
    await assert.rejects(box.upload([{ path: "fifo", content: "x" }]), /not a regular file|ENXIO/);
    assert.equal((await box.download("small")).length, 1 << 20);
    assert.equal((await box.exec(["echo", "still answering"])).stdout, "still answering\n");
  });

  it("/dev is read-only but for /dev/shm and /dev/mqueue", async () => {
    failedWith(await sh("touch /dev/x"), /Read-only file system/);
    assert.equal(
      (await sh("touch /dev/shm/x /dev/mqueue/q 2>&1; echo $?")).stdout.trim().split("\n").at(-1),
      "0",
    );
  });

  it("SIGUSR1 to the init opens no inspector (nor any other signal does anything to it)", async () => {
    await sh("kill -USR1 1; kill -USR2 1; kill -HUP 1; sleep 0.5");
    const r = await py("import socket\nsocket.create_connection(('127.0.0.1', 9229), timeout=2)");
    failedWith(r, /ConnectionRefusedError|Connection refused/);
  });

  it("when the pids budget is full, a command that cannot start is a result, not a throw", async () => {
    await py(
      "import os, time\nif os.fork() == 0:\n    os.setsid()\n    while True:\n        try:\n            if os.fork() == 0:\n                time.sleep(600); os._exit(0)\n        except OSError:\n            time.sleep(0.05)\n",
      { timeoutS: 3 },
    );
    await new Promise((r) => setTimeout(r, 500));
    const r = await box.exec(["echo", "hi"]);
    assert.notEqual(r.exitCode, 0);
    assert.equal(r.limit, "pids", JSON.stringify(r));
  });

  it("the writable dirs share diskMb (3/4 work dir, 1/8 /tmp, 1/8 /dev/shm)", async () => {
    const r = await sh(
      "for d in /work /tmp /dev/shm; do head -c 40M /dev/zero > $d/f 2>/dev/null; du -m $d/f | cut -f1; done",
    );
    const [work, tmp, shm] = r.stdout.trim().split("\n").map(Number);
    assert.ok(work! <= 24 && tmp! <= 4 && shm! <= 4, r.stdout);
  });

  it("two sandboxes see neither each other's files nor processes", async () => {
    const a = await backend.create();
    const b = await backend.create();
    try {
      await a.exec(["sh", "-c", "echo mine > f; setsid sleep 4242424 > /dev/null 2>&1 &"]);
      failedWith(await b.exec(["cat", "f"]), /No such file/);
      const ps = await b.exec(["sh", "-c", "cat /proc/[0-9]*/cmdline | tr '\\0' ' '"]);
      assert.doesNotMatch(ps.stdout, /4242424/);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("after close(): no process, no cgroup, and calls are refused", async () => {
    const s = await backend.create();
    await s.exec(["sh", "-c", "setsid sleep 7777771 > /dev/null 2>&1 &"]);
    await s.close();
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(hostProcesses("7777771"), []);
    if (backend.limitsBy === "cgroup") {
      const cgroups = readFileSync("/proc/self/cgroup", "utf8");
      const memory = /:memory:(.*)$/m.exec(cgroups)?.[1];
      if (memory !== undefined) {
        const dir = join("/sys/fs/cgroup/memory", memory);
        assert.deepEqual(
          readdirSync(dir).filter((n) => n.endsWith(`-${s.id}`)),
          [],
        );
      }
    }
    await assert.rejects(s.exec(["true"]), /closed/);
  });
});
