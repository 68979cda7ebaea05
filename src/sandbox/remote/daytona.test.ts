import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { FakeDaytona } from "../../testing/fake-sandbox-services/daytona.js";
import { type Sandbox, type SandboxBackend, SandboxClosedError, SandboxError } from "../types.js";
import { type DaytonaSandboxConfig, DaytonaSandboxConfigSchema, daytonaSandbox } from "./index.js";

// biome-ignore lint/suspicious/noExplicitAny: loose access to recorded JSON bodies
type J = Record<string, any>;

let fake: FakeDaytona;
let backend: SandboxBackend;

function config(over: Partial<DaytonaSandboxConfig> = {}): DaytonaSandboxConfig {
  return DaytonaSandboxConfigSchema.parse({
    backend: "daytona",
    apiUrl: fake.apiUrl,
    apiKey: fake.apiKey,
    ...over,
  });
}

before(async () => {
  fake = await FakeDaytona.start();
  backend = await daytonaSandbox.create(config({ organizationId: "org-1" }));
});
after(async () => {
  await backend.close();
  await fake.close();
});

/** A sandbox for one test, closed after it. */
async function withSandbox(fn: (s: Sandbox) => Promise<void>, spec = {}): Promise<void> {
  const s = await backend.create(spec);
  try {
    await fn(s);
  } finally {
    await s.close();
  }
}

describe("daytona config", () => {
  it("fills the defaults and refuses unknown keys", () => {
    const c = DaytonaSandboxConfigSchema.parse({ backend: "daytona" });
    assert.equal(c.apiUrl, "https://app.daytona.io/api");
    assert.equal(c.image, "python:3.12-slim");
    assert.equal(c.network, false);
    assert.throws(
      () => DaytonaSandboxConfigSchema.parse({ backend: "daytona", apiKeys: "x" }),
      /apiKeys/,
    );
  });

  it("without an API key, startup names both places to put one", async () => {
    const saved = process.env.DAYTONA_API_KEY;
    delete process.env.DAYTONA_API_KEY;
    try {
      await assert.rejects(
        daytonaSandbox.create(config({ apiKey: undefined })),
        /needs an API key: set sandbox\.apiKey .* or DAYTONA_API_KEY/,
      );
    } finally {
      if (saved !== undefined) process.env.DAYTONA_API_KEY = saved;
    }
  });

  it("a refused key is a clear error about the key", async () => {
    const bad = await daytonaSandbox.create(config({ apiKey: "wrong" }));
    await assert.rejects(
      bad.create(),
      /HTTP 401: Unauthorized \(the API key was refused: check sandbox\.apiKey/,
    );
  });
});

describe("daytona create", () => {
  it("sends the limits, network, env and image as Daytona's CreateSandbox", async () => {
    const before = fake.requests.length;
    await withSandbox(
      async (s) => {
        const r = await s.exec(["sh", "-c", 'printf %s "$FOO"']);
        assert.equal(r.stdout, "bar");
      },
      { limits: { memoryMb: 1500, diskMb: 3072, cpuSeconds: 5 }, env: { FOO: "bar" } },
    );
    const create = fake.requests
      .slice(before)
      .find((r) => r.method === "POST" && r.path === "/api/sandbox");
    assert.ok(create);
    const { name, ...body } = create.json as J;
    assert.match(name, /^rllm-[0-9a-f-]{36}$/);
    assert.deepEqual(body, {
      buildInfo: { dockerfileContent: "FROM python:3.12-slim\n" },
      env: { FOO: "bar" },
      labels: { "rllm.sandbox": "true" },
      memory: 2,
      disk: 3,
      networkBlockAll: true,
      autoStopInterval: 15,
      autoDeleteInterval: 0,
    });
    assert.equal(create.headers.authorization, `Bearer ${fake.apiKey}`);
    assert.equal(create.headers["x-daytona-organization-id"], "org-1");
  });

  it("network on, a spec's image and a target", async () => {
    const b = await daytonaSandbox.create(config({ target: "eu", network: true }));
    const before = fake.requests.length;
    const s = await b.create({ image: "node:22" });
    await s.close();
    const body = fake.requests.slice(before).find((r) => r.path === "/api/sandbox")?.json as J;
    assert.equal(body.networkBlockAll, false);
    assert.equal(body.target, "eu");
    assert.deepEqual(body.buildInfo, { dockerfileContent: "FROM node:22\n" });
  });

  it("refuses a limit Daytona cannot enforce before asking for a sandbox", async () => {
    const before = fake.calls("POST", /^\/api\/sandbox$/).length;
    await assert.rejects(backend.create({ limits: { pids: 10 } }), /cannot enforce limit pids/);
    await assert.rejects(backend.create({ hostPaths: ["/opt"] }), /cannot mount host paths/);
    await assert.rejects(backend.create({ image: "x\nRUN evil" }), /is not an image reference/);
    assert.equal(fake.calls("POST", /^\/api\/sandbox$/).length, before);
  });

  it("a sandbox that fails to start is an error with Daytona's reason, and is deleted", async () => {
    fake.startError = "image python:9 not found";
    try {
      await assert.rejects(
        backend.create(),
        /failed to start \(state build_failed\): image python:9 not found/,
      );
    } finally {
      fake.startError = undefined;
    }
    const lastCreate = fake.calls("POST", /^\/api\/sandbox$/).at(-1);
    const name = ((lastCreate?.json ?? {}) as J).name;
    assert.ok(![...fake.sandboxes.values()].some((s) => s.name === name));
  });

  it("retries a 5xx, then succeeds", async () => {
    const before = fake.calls("POST", /^\/api\/sandbox$/).length;
    fake.fail("POST", /^\/api\/sandbox$/, 503, 2, "upstream busy");
    await withSandbox(async (s) => {
      assert.equal((await s.exec(["true"])).exitCode, 0);
    });
    assert.equal(fake.calls("POST", /^\/api\/sandbox$/).length, before + 3);
  });

  it("a retried create whose first attempt went through adopts that sandbox", async () => {
    const before = fake.sandboxes.size;
    fake.failAfter("POST", /^\/api\/sandbox$/, 502);
    await withSandbox(async (s) => {
      assert.equal(fake.sandboxes.size, before + 1);
      assert.ok(fake.sandboxes.has(s.id));
    });
    assert.equal(fake.sandboxes.size, before);
  });
});

describe("daytona exec", () => {
  let s: Sandbox;
  before(async () => {
    s = await backend.create();
  });
  after(async () => {
    await s.close();
  });

  it("stdout, stderr and exit code apart", async () => {
    const r = await s.exec(["sh", "-c", "echo out; echo err >&2; exit 3"]);
    assert.deepEqual(
      { ...r, wallSeconds: 0 },
      {
        exitCode: 3,
        signal: null,
        stdout: "out\n",
        stderr: "err\n",
        stdoutTruncated: false,
        stderrTruncated: false,
        timedOut: false,
        limit: null,
        wallSeconds: 0,
        cpuSeconds: null,
      },
    );
    const req = fake.calls("POST", /\/process\/execute$/).at(-1)?.json as J;
    assert.equal(req.timeout, 30);
    assert.equal(req.cwd, s.workdir);
  });

  it("a program not found is 127 with the shell's message", async () => {
    const r = await s.exec(["no-such-program"]);
    assert.equal(r.exitCode, 127);
    assert.match(r.stderr, /no-such-program: not found/);
  });

  it("cwd, env, argv quoting and the streaming callbacks", async () => {
    await s.upload([{ path: "sub/x", content: "" }]);
    const seen: string[] = [];
    const r = await s.exec(
      ["sh", "-c", 'printf "%s|%s|%s" "$(basename "$PWD")" "$V" "$1"', "sh", "it's a 'test'"],
      {
        cwd: "sub",
        env: { V: "v1" },
        onStdout: (c) => seen.push(new TextDecoder().decode(c)),
      },
    );
    assert.equal(r.stdout, "sub|v1|it's a 'test'");
    assert.deepEqual(seen, ["sub|v1|it's a 'test'"]);
    await assert.rejects(s.exec(["true"], { env: { "BAD-NAME": "x" } }), /BAD-NAME/);
    await assert.rejects(s.exec(["true"], { cwd: "../up" }), /"\.\.\/up"/);
  });

  it("a cwd that is not a directory: the protocol's error, nothing run, as on bwrap", async () => {
    await s.upload([{ path: "plain", content: "" }]);
    for (const cwd of ["missing", "plain"]) {
      await assert.rejects(
        s.exec(["sh", "-c", "echo ran > ../ran"], { cwd, stdin: "x" }),
        (e: Error) =>
          e instanceof SandboxError &&
          e.message === `cwd ${cwd} is not a directory in the sandbox's work dir`,
      );
    }
    await assert.rejects(s.download("ran"), /no file "ran"/);
    const left = await s.exec(["sh", "-c", 'ls -A "$HOME/.rllm-exec" | wc -l']);
    assert.equal(left.stdout.trim(), "1", "only the listing's own scratch dir: the refused gone");
  });

  it("argv and options: spec.ts's checks", async () => {
    await assert.rejects(s.exec([]), /non-empty array of strings/);
    await assert.rejects(s.exec(["true"], { timeoutS: Number.NaN }), /timeoutS/);
    await assert.rejects(s.exec(["true"], { maxOutputBytes: -1 }), /maxOutputBytes/);
  });

  it("status 128+n is signal n; failures name the limit as on every backend", async () => {
    const killed = await s.exec(["sh", "-c", "exit 137"]);
    assert.deepEqual([killed.exitCode, killed.signal, killed.limit], [null, "SIGKILL", null]);
    assert.equal((await s.exec(["sh", "-c", "exit 160"])).exitCode, 160);
    const py = await s.exec(["python3", "-c", "raise MemoryError()"]);
    assert.deepEqual([py.exitCode, py.limit], [1, "memory"]);
    const full = await s.exec(["sh", "-c", "echo 'write: No space left on device' >&2; exit 1"]);
    assert.equal(full.limit, "disk");
    const fine = await s.exec(["sh", "-c", "echo MemoryError >&2"]);
    assert.equal(fine.limit, null); // exit 0: nothing stopped it
  });

  it("stdin reaches the command (cat, python3)", async () => {
    const bytes = new Uint8Array([104, 105, 0, 255, 10]);
    const r = await s.exec(["sh", "-c", "od -An -tu1 | tr -s ' '"], { stdin: bytes });
    assert.equal(r.stdout.trim(), "104 105 0 255 10");
    const py = await s.exec(["python3", "-c", "import sys; print(sys.stdin.read().upper())"], {
      stdin: "hello",
    });
    assert.equal(py.stdout, "HELLO\n");
    assert.equal((await s.exec(["cat"])).stdout, "", "no stdin is /dev/null");
  });

  it("timeout: killed, what it wrote kept", async () => {
    const r = await s.exec(["sh", "-c", "echo before; sleep 10; echo after"], { timeoutS: 1 });
    assert.equal(r.timedOut, true);
    assert.equal(r.limit, "timeout");
    assert.equal(r.exitCode, null);
    assert.equal(r.signal, "SIGKILL");
    assert.equal(r.stdout, "before\n");
    assert.ok(r.wallSeconds < 5, `took ${r.wallSeconds}s`);
    assert.equal(((fake.calls("POST", /\/process\/execute$/).at(-2)?.json ?? {}) as J).timeout, 1);
  });

  it("output past maxOutputBytes is cut and kills the command", async () => {
    const r = await s.exec(
      [
        "python3",
        "-c",
        "import sys,time\nsys.stdout.write('a'*5000); sys.stdout.flush(); time.sleep(10)",
      ],
      { maxOutputBytes: 100 },
    );
    assert.equal(r.stdout, "a".repeat(100));
    assert.equal(r.stdoutTruncated, true);
    assert.equal(r.stderrTruncated, false);
    assert.equal(r.limit, "output");
    assert.equal(r.exitCode, null);
    assert.ok(r.wallSeconds < 5, `took ${r.wallSeconds}s`);
    const sh = await s.exec(["sh", "-c", "head -c 5000 /dev/zero; sleep 10"], {
      maxOutputBytes: 100,
    });
    assert.equal(sh.limit, "output");
    assert.ok(sh.wallSeconds < 5, `the child sleep outlived the cap: ${sh.wallSeconds}s`);
    const e = await s.exec(["sh", "-c", "head -c 300 /dev/zero >&2"], { maxOutputBytes: 10 });
    assert.equal(e.stderr.length, 10);
    assert.equal(e.stderrTruncated, true);
  });

  it("aborting kills the command", async () => {
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 500);
    const r = await s.exec(["sh", "-c", "sleep 10; echo after"], { signal: ac.signal });
    assert.equal(r.limit, "timeout");
    assert.equal(r.timedOut, false);
    assert.equal(r.stdout, "");
    assert.ok(r.wallSeconds < 5, `took ${r.wallSeconds}s`);
    const runs = fake.calls("POST", /\/process\/execute$/).length;
    const early = await s.exec(["echo", "never"], { signal: AbortSignal.abort() });
    assert.deepEqual(
      [early.limit, early.timedOut, early.signal, early.stdout],
      ["timeout", false, "SIGKILL", ""],
    );
    assert.equal(fake.calls("POST", /\/process\/execute$/).length, runs, "aborted before: not run");
  });

  it("a 429 on execute is retried; a 502 is not (the command may have run)", async () => {
    fake.fail("POST", /\/process\/execute$/, 429, 1);
    assert.equal((await s.exec(["echo", "ok"])).stdout, "ok\n");
    const before = fake.calls("POST", /\/process\/execute$/).length;
    fake.fail("POST", /\/process\/execute$/, 502, 1, "proxy lost the runner");
    await assert.rejects(s.exec(["echo", "ok"]), /HTTP 502: proxy lost the runner/);
    assert.equal(fake.calls("POST", /\/process\/execute$/).length, before + 1);
  });
});

describe("daytona cpu limit", () => {
  it("cpuSeconds stops a busy loop with limit cpu", async () => {
    await withSandbox(
      async (s) => {
        const r = await s.exec(["sh", "-c", "while :; do :; done"], { timeoutS: 20 });
        assert.equal(r.limit, "cpu");
        assert.equal(r.timedOut, false);
        assert.equal(r.exitCode, null);
      },
      { limits: { cpuSeconds: 1 } },
    );
  });
});

describe("daytona per-command limits", () => {
  it("fileMb stops a large write with limit disk; openFiles caps descriptors", async () => {
    await withSandbox(
      async (s) => {
        const big = await s.exec(["sh", "-c", "head -c 3000000 /dev/zero > big"]);
        assert.equal(big.limit, "disk");
        assert.equal(big.signal, "SIGXFSZ");
        const small = await s.exec(["sh", "-c", "head -c 500000 /dev/zero > small && echo ok"]);
        assert.equal(small.stdout, "ok\n");
        assert.equal((await s.exec(["sh", "-c", "ulimit -n"])).stdout, "32\n");
      },
      { limits: { fileMb: 1, openFiles: 32 } },
    );
  });

  it("the config's limits apply under a spec's", async () => {
    const b = await daytonaSandbox.create(config({ limits: { memoryMb: 4096, diskMb: 1024 } }));
    const before = fake.requests.length;
    const s = await b.create({ limits: { diskMb: 5000 } });
    await s.close();
    const body = fake.requests.slice(before).find((r) => r.path === "/api/sandbox")?.json as J;
    assert.equal(body.memory, 4);
    assert.equal(body.disk, 5);
  });
});

describe("daytona files", () => {
  it("upload, download and snapshot round trip, modes included", async () => {
    const files = [
      { path: "a.txt", content: "hi" },
      { path: "bin/run.sh", content: "#!/bin/sh\necho ran\n", mode: 0o755 },
      { path: "data.bin", content: new Uint8Array([0, 255, 1]) },
    ];
    let snap = { files: [] as { path: string; content: Uint8Array | string; mode?: number }[] };
    await withSandbox(async (s) => {
      await s.upload(files);
      assert.equal(new TextDecoder().decode(await s.download("a.txt")), "hi");
      assert.deepEqual(await s.download("data.bin"), new Uint8Array([0, 255, 1]));
      assert.equal((await s.exec(["./bin/run.sh"])).stdout, "ran\n");
      snap = await s.snapshot();
      assert.deepEqual(
        snap.files.map((f) => [f.path, f.mode]),
        [
          ["a.txt", 0o644],
          ["bin/run.sh", 0o755],
          ["data.bin", 0o644],
        ],
      );
      await assert.rejects(s.download("missing.txt"), /no file "missing.txt"/);
      await assert.rejects(s.upload([{ path: "../x", content: "" }]), /"\.\.\/x"/);
      await assert.rejects(s.download("/etc/passwd"), /absolute/);
    });
    await withSandbox(
      async (s) => {
        assert.equal((await s.exec(["./bin/run.sh"])).stdout, "ran\n");
        assert.deepEqual(await s.download("data.bin"), new Uint8Array([0, 255, 1]));
      },
      { snapshot: snap },
    );
    const perms = fake.calls("POST", /\/files\/permissions$/).map((r) => r.query.mode);
    assert.ok(perms.includes("0755") && perms.includes("0644"));
  });
});

describe("daytona close", () => {
  it("deletes the sandbox once; every later call throws SandboxClosedError", async () => {
    const s = await backend.create();
    assert.ok(fake.sandboxes.has(s.id));
    await s.close();
    await s.close();
    assert.equal(fake.calls("DELETE", new RegExp(`/api/sandbox/${s.id}$`)).length, 1);
    assert.ok(!fake.sandboxes.has(s.id));
    await assert.rejects(s.exec(["true"]), SandboxClosedError);
    await assert.rejects(s.upload([]), SandboxClosedError);
    await assert.rejects(s.download("a"), SandboxClosedError);
    await assert.rejects(s.snapshot(), SandboxClosedError);
  });

  it("close() while a command runs resolves it as killed, as on bwrap", async () => {
    const s = await backend.create();
    const pending = s.exec(["sleep", "30"]);
    const runs = () => fake.calls("POST", /\/process\/execute$/).length;
    const before = runs();
    while (runs() === before) await new Promise((r) => setTimeout(r, 20));
    await s.close();
    const r = await pending;
    assert.deepEqual([r.exitCode, r.signal, r.limit, r.timedOut], [null, "SIGKILL", null, false]);
    assert.match(r.stderr, /the sandbox ended: close\(\) deleted it\]$/);
    assert.ok(r.wallSeconds < 10, `took ${r.wallSeconds}s`);
  });

  it("a sandbox Daytona already deleted closes without error; backend.close deletes what is open", async () => {
    const b = await daytonaSandbox.create(config());
    const gone = await b.create();
    const open = await b.create();
    fake.deleteDirectly(gone.id);
    await gone.close();
    await b.close();
    assert.ok(!fake.sandboxes.has(open.id));
  });
});

describe("the fake Daytona refuses what the real one refuses", () => {
  const post = (path: string, body: unknown, key = fake.apiKey) =>
    fetch(`${fake.url}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });

  it("auth, CreateSandbox types and keys, execute's command and env names", async () => {
    assert.equal((await post("/api/sandbox", {}, "nope")).status, 401);
    const bad = await post("/api/sandbox", { memory: "2", networkBlockAll: 1, imag: "x" });
    assert.equal(bad.status, 400);
    const { message } = (await bad.json()) as J;
    assert.match(message, /memory must be a number/);
    assert.match(message, /networkBlockAll must be a boolean/);
    assert.match(message, /property imag should not exist/);
    const created = (await (await post("/api/sandbox", { name: "raw" })).json()) as J;
    assert.equal((await post("/api/sandbox", { name: "raw" })).status, 409);
    const tb = `/toolbox/${created.id}/process/execute`;
    assert.equal((await post(tb, { command: "  " })).status, 400);
    assert.equal((await post(tb, { command: "true", envs: { "1X": "y" } })).status, 400);
    assert.equal((await post(tb, { command: "true", timeout: -1 })).status, 400);
    const ok = (await (await post(tb, { command: "echo a; echo b >&2; exit 4" })).json()) as J;
    assert.deepEqual(ok, { exitCode: 4, result: "a\nb\n" });
    const timedOut = await post(tb, { command: "sleep 5", timeout: 1 });
    assert.equal(timedOut.status, 408);
    fake.deleteDirectly(created.id);
  });
});
