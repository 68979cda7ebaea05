/**
 * The bwrap backend against the protocol (types.ts), for real: commands, streams, files,
 * snapshots, errors, both ways of holding limits, and the pool. Hostile programs are in
 * hostile.test.ts.
 */
import assert from "node:assert/strict";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { childPids } from "../testing/procs.js";
import { BwrapBackend } from "./bwrap.js";
import { BwrapSandboxConfigSchema } from "./config.js";
import { SandboxPool } from "./pool.js";
import { closeSharedSandboxes, configureSandboxes, sharedSandboxes } from "./shared.js";
import { type Sandbox, SandboxClosedError } from "./types.js";

const config = (over: Record<string, unknown> = {}) =>
  BwrapSandboxConfigSchema.parse({ backend: "bwrap", ...over });

let backend: BwrapBackend;
before(async () => {
  backend = await BwrapBackend.start(config());
});
after(async () => {
  await backend.close();
});

async function withBox<T>(fn: (s: Sandbox) => Promise<T>, spec = {}): Promise<T> {
  const s = await backend.create(spec);
  try {
    return await fn(s);
  } finally {
    await s.close();
  }
}

describe("exec", () => {
  it("runs argv as given (no shell), with stdin, and reports code, streams and times", () =>
    withBox(async (s) => {
      const r = await s.exec(
        [
          "python3",
          "-c",
          "import sys; d = sys.stdin.read(); print(sys.argv[1:], d); sys.stderr.write('e'); sys.exit(7)",
          "a b",
          "$HOME",
          "'q'",
        ],
        {
          stdin: "in put",
        },
      );
      assert.equal(r.exitCode, 7);
      assert.equal(r.signal, null);
      assert.equal(r.stdout, "['a b', '$HOME', \"'q'\"] in put\n");
      assert.equal(r.stderr, "e");
      assert.equal(r.limit, null);
      assert.equal(r.timedOut, false);
      assert.ok(r.wallSeconds > 0 && r.wallSeconds < 10);
      assert.ok(r.cpuSeconds !== null && r.cpuSeconds >= 0);
    }));

  it("counts CPU seconds of the command and what it waited for", () =>
    withBox(async (s) => {
      const r = await s.exec([
        "sh",
        "-c",
        "python3 -c 'import time\nt = time.process_time()\nwhile time.process_time() - t < 0.4: pass'",
      ]);
      assert.equal(r.exitCode, 0, r.stderr);
      assert.ok(r.cpuSeconds! >= 0.35 && r.cpuSeconds! < 2, String(r.cpuSeconds));
    }));

  it("a command that cannot start is exit 127 or 126, as sh reports it", () =>
    withBox(async (s) => {
      const missing = await s.exec(["no-such-program"]);
      assert.equal(missing.exitCode, 127);
      assert.match(missing.stderr, /not found/);
      await s.upload([{ path: "script", content: "#!/bin/sh\necho hi\n", mode: 0o644 }]);
      assert.equal((await s.exec(["./script"])).exitCode, 126);
      await s.upload([{ path: "script", content: "#!/bin/sh\necho hi\n", mode: 0o755 }]);
      assert.equal((await s.exec(["./script"])).stdout, "hi\n");
    }));

  it("environment: the spec's and the command's, over a clean base", () =>
    withBox(
      async (s) => {
        const r = await s.exec(["sh", "-c", "echo $A-$B-$HOME-$PATH"], { env: { B: "two" } });
        assert.equal(
          r.stdout,
          "one-two-/work-/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin\n",
        );
      },
      { env: { A: "one" } },
    ));

  it("cwd is relative to the work dir", () =>
    withBox(async (s) => {
      await s.exec(["mkdir", "-p", "sub/dir"]);
      assert.equal((await s.exec(["pwd"], { cwd: "sub/dir" })).stdout, "/work/sub/dir\n");
      await assert.rejects(s.exec(["pwd"], { cwd: "missing" }), /cwd missing is not a directory/);
    }));

  it("streams chunks as they come, before the result", () =>
    withBox(async (s) => {
      const seen: string[] = [];
      let doneAt = 0;
      const firstAt: number[] = [];
      const r = await s.exec(
        ["sh", "-c", "echo one; sleep 0.3; echo two >&2; sleep 0.3; echo three"],
        {
          onStdout: (c) => {
            seen.push(`o:${Buffer.from(c).toString().trim()}`);
            firstAt.push(performance.now());
          },
          onStderr: (c) => seen.push(`e:${Buffer.from(c).toString().trim()}`),
        },
      );
      doneAt = performance.now();
      assert.deepEqual(seen, ["o:one", "e:two", "o:three"]);
      assert.ok(doneAt - firstAt[0]! > 400, "the first chunk came before the command ended");
      assert.equal(r.stdout, "one\nthree\n");
    }));

  it("runs commands at once in one sandbox, and background processes live on between them", () =>
    withBox(async (s) => {
      // Each prints when it started and ended: all three started before the first one ended.
      const rs = await Promise.all(
        [1, 2, 3].map(() => s.exec(["sh", "-c", "date +%s.%N; sleep 0.5; date +%s.%N"])),
      );
      const spans = rs.map((r) => r.stdout.trim().split("\n").map(Number) as [number, number]);
      assert.ok(
        Math.max(...spans.map(([a]) => a)) < Math.min(...spans.map(([, b]) => b)),
        JSON.stringify(spans),
      );
      await s.exec(["sh", "-c", "python3 -m http.server 8765 --bind 127.0.0.1 > /dev/null 2>&1 &"]);
      const got = await s.exec([
        "python3",
        "-c",
        "import time, urllib.request\nfor _ in range(50):\n    try:\n        print(urllib.request.urlopen('http://127.0.0.1:8765/').status); break\n    except OSError: time.sleep(0.1)",
      ]);
      assert.equal(got.stdout, "200\n");
    }));

  it("an AbortSignal kills the command", () =>
    withBox(async (s) => {
      const abort = new AbortController();
      setTimeout(() => abort.abort(), 300);
      const r = await s.exec(["sleep", "30"], { signal: abort.signal });
      assert.equal(r.signal, "SIGKILL");
      assert.equal(r.timedOut, false);
      assert.ok(r.wallSeconds < 5);
    }));

  it("bad calls are errors that say what to fix", () =>
    withBox(async (s) => {
      await assert.rejects(s.exec([]), /non-empty array of strings/);
      await assert.rejects(s.exec([1 as unknown as string]), /non-empty array of strings/);
      await assert.rejects(
        s.exec(["true"], { timeoutS: 0 }),
        /timeoutS must be a positive number of seconds/,
      );
      await assert.rejects(s.exec(["true"], { maxOutputBytes: -1 }), /maxOutputBytes/);
      await assert.rejects(s.upload([{ path: "x", content: "", mode: 0o10000 }]), /mode must be/);
      await assert.rejects(s.download("missing"), /ENOENT|no such file/i);
    }));
});

describe("files", () => {
  it("upload, download and snapshot round-trip bytes, dirs and modes", () =>
    withBox(async (s) => {
      const binary = Buffer.from(Array.from({ length: 5 << 20 }, (_, i) => (i * 7) & 255));
      await s.upload([
        { path: "a/b/bin.dat", content: binary },
        { path: "run.sh", content: "#!/bin/sh\necho ran\n", mode: 0o755 },
      ]);
      assert.ok(Buffer.from(await s.download("a/b/bin.dat")).equals(binary));
      assert.equal((await s.exec(["./run.sh"])).stdout, "ran\n");
      await s.exec(["sh", "-c", "echo made > made.txt; ln -s made.txt link"]);
      const snap = await s.snapshot();
      assert.deepEqual(
        snap.files.map((f) => [f.path, f.mode]),
        [
          ["a/b/bin.dat", 0o644],
          ["made.txt", 0o644],
          ["run.sh", 0o755],
        ],
      );
      // Each attempt of a task starts from the same prepared work dir.
      await withBox(
        async (t) => {
          assert.equal((await t.exec(["cat", "made.txt"])).stdout, "made\n");
          assert.equal((await t.exec(["./run.sh"])).stdout, "ran\n");
          assert.ok(Buffer.from(await t.download("a/b/bin.dat")).equals(binary));
        },
        { snapshot: snap },
      );
    }));
});

describe("spec and config", () => {
  it("refuses what bwrap cannot do, naming the knob", async () => {
    await assert.rejects(backend.create({ image: "python:3.12" }), /takes no image/);
    await assert.rejects(
      backend.create({ limits: { memoryMb: 0 } }),
      /memoryMb must be a positive number/,
    );
    await assert.rejects(
      backend.create({ limits: { gpus: 1 } as never }),
      /unknown sandbox limit "gpus"/,
    );
    await assert.rejects(
      backend.create({ hostPaths: ["/no/such/dir"] }),
      /cannot be opened.*hostPaths/,
    );
    await assert.rejects(
      BwrapBackend.start(config({ bwrap: "/no/bwrap" })),
      /bubblewrap .* does not run/,
    );
    assert.throws(() => config({ limitsBy: "both" }), /limitsBy/);
    assert.throws(() => config({ hostPath: [] }), /hostPath/);
  });

  it("network on: the sandbox shares the host's network", async () => {
    const server = createServer((c) => c.end("hello from the host"));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as { port: number }).port;
    try {
      await withBox(
        async (s) => {
          const r = await s.exec([
            "python3",
            "-c",
            `import socket\nprint(socket.create_connection(("127.0.0.1", ${port})).recv(100).decode())`,
          ]);
          assert.equal(r.stdout, "hello from the host\n");
        },
        { network: true },
      );
    } finally {
      server.close();
    }
  });

  it("hostPaths are seen read-only at the same path", async () => {
    const dir = mkdtempSync(join(tmpdir(), "rllm-hostpath-"));
    writeFileSync(join(dir, "tool.txt"), "a tool");
    chmodSync(dir, 0o755); // readable by the sandbox's user (nobody, when the tests run as root)
    try {
      await withBox(
        async (s) => {
          assert.equal((await s.exec(["cat", join(dir, "tool.txt")])).stdout, "a tool");
          const w = await s.exec(["touch", join(dir, "x")]);
          assert.match(w.stderr, /Read-only file system/);
        },
        { hostPaths: [dir] },
      );
      assert.equal(existsSync(join(dir, "x")), false);
    } finally {
      rmSync(dir, { recursive: true });
    }
  });

  it("limits by rlimit alone: RLIMIT_NPROC stands in for the pids limit", async () => {
    const rl = await BwrapBackend.start(config({ limitsBy: "rlimit" }));
    assert.equal(rl.limitsBy, "rlimit");
    const s = await rl.create({ limits: { pids: 20, memoryMb: 128 } });
    try {
      const r = await s.exec([
        "python3",
        "-c",
        "import os, time\nn = 0\ntry:\n    while True:\n        if os.fork() == 0:\n            time.sleep(60); os._exit(0)\n        n += 1\nexcept OSError as e:\n    print(n)\n    raise",
      ]);
      assert.equal(r.limit, "pids");
      // RLIMIT_NPROC counts the sandbox's user namespace: the budget plus the init's threads.
      assert.ok(Number(r.stdout) <= 20 + 16, r.stdout);
      const m = await s.exec(["python3", "-c", "b = bytearray(512 * 1024**2)"]);
      assert.equal(m.limit, "memory");
    } finally {
      await s.close();
      await rl.close();
    }
  });

  it("a new backend removes the cgroups of rllm processes that died without closing", async (t) => {
    if (backend.limitsBy !== "cgroup") {
      t.skip("no cgroup can be made here (not root, no delegated cgroup v2 subtree)");
      return;
    }
    const own = readFileSync("/proc/self/cgroup", "utf8");
    const pidsDir = join("/sys/fs/cgroup/pids", /:pids:(.*)$/m.exec(own)![1]!);
    const stale = join(pidsDir, "rllm-sandbox-4194999-deadbeef");
    mkdirSync(stale);
    const again = await BwrapBackend.start(config());
    await again.close();
    assert.equal(existsSync(stale), false);
    assert.deepEqual(
      readdirSync(pidsDir).filter((n) => n.startsWith(`rllm-sandbox-${process.pid}-`)),
      [],
    );
  });

  it("reset() refuses to hand on a sandbox whose init's limits were changed; message queues go", () =>
    withBox(async (s) => {
      const mq = await s.exec([
        "python3",
        "-c",
        "import ctypes\nrt = ctypes.CDLL('librt.so.1', use_errno=True)\nprint(rt.mq_open(b'/leak', 0o102, 0o600, None) >= 0)",
      ]);
      assert.equal(mq.stdout, "True\n", mq.stderr);
      assert.ok(s.reset);
      await s.reset();
      assert.equal((await s.exec(["ls", "/dev/mqueue"])).stdout, "");
      await s.exec([
        "sh",
        "-c",
        "prlimit --pid $(for p in /proc/[0-9]*; do grep -l rllm-init $p/cmdline 2>/dev/null; done | head -1 | cut -d/ -f3) --nofile=64:64",
      ]);
      await assert.rejects(s.reset(), /changed the init's limits, priority or scheduling/);
    }));

  it("reset() refuses to hand on a sandbox with orphans the init cannot reap, or its state changed", async () => {
    await withBox(async (s) => {
      // A double-forked child that exits: an orphan of pid 1, a zombie ever after.
      await s.exec([
        "python3",
        "-c",
        "import os\nif os.fork() == 0:\n    if os.fork() == 0: os._exit(0)\n    os._exit(0)\nos.wait()",
      ]);
      assert.ok(s.reset);
      await assert.rejects(s.reset(), /orphaned processes would stay as zombies/);
    });
    for (const change of [
      "taskset -p 1 1",
      "chrt -i -p 0 1",
      "ionice -c 3 -p 1",
      // one step away from the init's nice value, whatever nice the test runner has
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter, not a template
      "set -- $(cat /proc/1/stat); renice -n $(( ${19} < 19 ? ${19} + 1 : 18 )) -p 1",
    ]) {
      await withBox(async (s) => {
        await s.exec(["sh", "-c", `${change} > /dev/null`]);
        await assert.rejects(
          s.reset!(),
          /changed the init's limits, priority or scheduling/,
          change,
        );
      });
    }
  });

  it("reset() restores the mounts' modes and drops their extended attributes", () =>
    withBox(async (s) => {
      await s.exec([
        "sh",
        "-c",
        "python3 -c \"import os\nos.setxattr('/work', 'user.note', b'user 1 was here')\"; chmod 555 /work /tmp /dev/shm",
      ]);
      await s.reset!();
      const r = await s.exec([
        "sh",
        "-c",
        "touch /work/a /tmp/a /dev/shm/a && python3 -c \"import os\nprint(os.listxattr('/work'))\"",
      ]);
      assert.equal(r.stdout, "[]\n", r.stderr);
    }));

  it("exit codes: 128 + n reads as signal n; a success is never blamed on a limit", () =>
    withBox(
      async (s) => {
        const killed = await s.exec(["sh", "-c", "exit 137"]);
        assert.deepEqual([killed.exitCode, killed.signal], [null, "SIGKILL"]);
        const plain = await s.exec(["sh", "-c", "exit 200"]);
        assert.deepEqual([plain.exitCode, plain.signal], [200, null]);
        // A memory kill elsewhere in the sandbox while this command succeeds: not this one's limit.
        const [bomb, fine] = await Promise.all([
          s.exec([
            "python3",
            "-c",
            "import os\nfor _ in range(4):\n    if os.fork() == 0:\n        b = bytearray(60 * 1024**2)\n        for i in range(0, len(b), 4096): b[i] = 1\n        os._exit(0)\nfor _ in range(4): os.wait()",
          ]),
          s.exec(["sh", "-c", "sleep 1; echo ok"]),
        ]);
        assert.equal(fine.stdout, "ok\n");
        assert.equal(fine.limit, null);
        assert.equal(typeof bomb.exitCode === "number" || bomb.signal !== null, true);
      },
      { limits: { memoryMb: 128 } },
    ));

  it("a failed create leaves nothing running; an already-aborted signal kills at once", async () => {
    // This process's own children only: other test files run beside this one.
    const children = () => childPids(process.pid).length;
    const before = children();
    await assert.rejects(
      backend.create({ snapshot: { files: [{ path: "../x", content: "" }] } }),
      /"\.\."/,
    );
    await withBox(async (s) => {
      const abort = new AbortController();
      abort.abort();
      const r = await s.exec(["sleep", "5"], { signal: abort.signal });
      assert.ok(r.wallSeconds < 2, String(r.wallSeconds));
    });
    const until = Date.now() + 5000; // bwrap's exit is reaped a moment after close()
    while (children() > before && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    assert.ok(children() <= before, `${children()} children, ${before} before`);
  });

  it("close() twice is a no-op; calls after it throw SandboxClosedError", async () => {
    const s = await backend.create();
    await s.close();
    await s.close();
    await assert.rejects(s.exec(["true"]), SandboxClosedError);
    await assert.rejects(s.upload([]), SandboxClosedError);
    await assert.rejects(s.download("x"), SandboxClosedError);
    await assert.rejects(s.snapshot(), SandboxClosedError);
  });
});

describe("the pool", () => {
  it("hands out warm sandboxes, reset to a fresh state after each release", async () => {
    const pool = new SandboxPool(backend, { size: 2 });
    try {
      const a = await pool.acquire();
      await a.exec(["sh", "-c", "echo dirty > f; echo t > /tmp/t; chmod 000 /tmp"]);
      await pool.release(a);
      const b = await pool.acquire();
      const c = await pool.acquire();
      const reused = [b, c].find((s) => s.id === a.id);
      assert.ok(reused, "the released sandbox is handed out again");
      assert.equal(
        (
          await reused.exec([
            "sh",
            "-c",
            "ls -A /work /tmp; ps -e -o args= | grep -c '[s]leep 5151515'",
          ])
        ).stdout,
        "/tmp:\n\n/work:\n0\n",
      );
      await pool.release(b);
      await pool.release(b); // twice: ignored
      await pool.release(c);
      const d = await pool.acquire();
      assert.ok(
        [b.id, c.id].includes(d.id),
        "the pool reuses its sandboxes rather than making new ones",
      );
      // One that cannot be reset (a command lowered its init's limits) is replaced.
      await d.exec(["prlimit", "--pid", "1", "--nofile=64:64"]);
      await pool.release(d);
      const e = await pool.acquire();
      const f = await pool.acquire();
      assert.ok(e.id !== d.id && f.id !== d.id);
      assert.equal((await e.exec(["echo", "ok"])).stdout, "ok\n");
      await pool.release(e);
      await pool.release(f);
    } finally {
      await pool.close();
    }
  });

  it("reset(): files (whatever their modes), IPC objects and queues gone; the snapshot back", () =>
    withBox(
      async (s) => {
        await s.exec([
          "sh",
          "-c",
          "rm seed.txt; mkdir -p locked/in && touch locked/in/x && chmod 000 locked/in locked; touch /dev/shm/m .hidden; ipcmk -M 4096 > /dev/null; ipcmk -Q > /dev/null",
        ]);
        assert.match((await s.exec(["ipcs"])).stdout, /0x[0-9a-f]+ +\d+ +sandbox/);
        assert.ok(s.reset);
        await s.reset();
        const after = await s.exec([
          "sh",
          "-c",
          "ls -A /work /tmp /dev/shm; cat seed.txt; ipcs -m -q | grep -c sandbox; ps -e -o stat=,comm= | grep -v ^Z | grep -c sleep",
        ]);
        assert.equal(after.stdout, "/dev/shm:\n\n/tmp:\n\n/work:\nseed.txt\nseed\n0\n0\n");
      },
      { snapshot: { files: [{ path: "seed.txt", content: "seed\n" }] } },
    ));

  it("bounds sandboxes alive at once; waiters are served in order", async () => {
    const pool = new SandboxPool(backend, { size: 1, maxConcurrent: 2 });
    try {
      const a = await pool.acquire();
      const b = await pool.acquire();
      const order: string[] = [];
      const served = (name: string) => (s: Sandbox) => {
        order.push(name);
        return s;
      };
      const c = pool.acquire().then(served("c"));
      const d = pool.acquire().then(served("d"));
      await new Promise((r) => setTimeout(r, 200));
      assert.deepEqual(order, []);
      await pool.release(a);
      const sc = await c;
      await pool.release(b);
      const sd = await d;
      assert.deepEqual(order, ["c", "d"]);
      await pool.release(sc);
      await pool.release(sd);
    } finally {
      await pool.close();
    }
    await assert.rejects(pool.acquire(), /pool is closed/);
    assert.throws(() => new SandboxPool(backend, { size: 2, maxConcurrent: 1 }), /maxConcurrent/);
    assert.throws(() => new SandboxPool(backend, { size: -1 }), /size/);
  });

  it("a spec of the caller's own (a task's snapshot) is made on demand", async () => {
    const pool = new SandboxPool(backend, { size: 1 });
    try {
      const out = await pool.use((s) => s.exec(["cat", "task.txt"]), {
        snapshot: { files: [{ path: "task.txt", content: "the task" }] },
      });
      assert.equal(out.stdout, "the task");
    } finally {
      await pool.close();
    }
  });

  it("the process's shared pool follows the configured section", async () => {
    await configureSandboxes(
      BwrapSandboxConfigSchema.parse({ backend: "bwrap", poolSize: 1, limits: { memoryMb: 64 } }),
    );
    try {
      const s = await sharedSandboxes.acquire();
      const r = await s.exec(["python3", "-c", "b = bytearray(200 * 1024**2)"]);
      assert.equal(r.limit, "memory");
      await sharedSandboxes.release(s);
    } finally {
      await closeSharedSandboxes();
    }
  });
});
