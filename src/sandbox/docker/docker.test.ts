/**
 * The docker sandbox backend against the fake daemon (src/testing/fake-docker; the fake itself, and
 * the real `docker` CLI against it, are tested in fake-docker.test.ts there).
 */
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { FakeDocker } from "../../testing/fake-docker/server.js";
import { allGone } from "../../testing/procs.js";
import { SandboxPool } from "../pool.js";
import { SandboxClosedError, SandboxError } from "../types.js";
import { DockerBackend } from "./backend.js";
import { DockerSandboxConfigSchema } from "./config.js";
import { dockerSandbox } from "./index.js";

const MiB = 1024 * 1024;

async function startBackend(fake: FakeDocker, extra: Record<string, unknown> = {}) {
  return DockerBackend.start(
    DockerSandboxConfigSchema.parse({
      backend: "docker",
      socket: `unix://${fake.socketPath}`,
      ...extra,
    }),
  );
}

type Body = { HostConfig: Record<string, unknown> } & Record<string, unknown>;
const lastCreate = (fake: FakeDocker) =>
  fake.requestsTo("POST", /^\/containers\/create$/).at(-1)?.body as Body;

describe("docker sandbox backend", () => {
  let fake: FakeDocker;
  let backend: DockerBackend;
  before(async () => {
    fake = await FakeDocker.start({
      images: ["python:3.12-slim"],
      registry: ["alpine:3.20"],
      failingPulls: ["broken:1"],
    });
    backend = await startBackend(fake);
  });
  after(async () => {
    await backend.close();
    await fake.close();
  });

  test("start pings the daemon and reads its version, under the configured API version", () => {
    assert.equal(fake.requestsTo("GET", /^\/_ping$/)[0]?.version, "1.43");
    assert.equal(fake.requestsTo("GET", /^\/version$/)[0]?.version, "1.43");
    assert.equal(backend.daemon.ApiVersion, "1.47");
  });

  test("no daemon at the socket: an error naming the socket and what to do", async () => {
    await assert.rejects(
      DockerBackend.start(
        DockerSandboxConfigSchema.parse({ backend: "docker", socket: "/nonexistent/docker.sock" }),
      ),
      /cannot reach the Docker daemon at \/nonexistent\/docker\.sock \(ENOENT\): start Docker.*sandbox\.socket/,
    );
  });

  test("an API version the daemon does not serve: its message", async () => {
    await assert.rejects(
      startBackend(fake, { apiVersion: "v1.99" }),
      /HTTP 400.*client version 1\.99 is too new\. Maximum supported API version is 1\.47/,
    );
  });

  test("config: socket as DOCKER_HOST writes it, defaults, strict keys", () => {
    const c = DockerSandboxConfigSchema.parse({ backend: "docker", socket: "unix:///run/d.sock" });
    assert.equal(c.socket, "/run/d.sock");
    assert.deepEqual(
      {
        image: c.image,
        pull: c.pull,
        apiVersion: c.apiVersion,
        network: c.network,
        poolSize: c.poolSize,
      },
      {
        image: "python:3.12-slim",
        pull: "missing",
        apiVersion: "v1.43",
        network: false,
        poolSize: 2,
      },
    );
    assert.equal(
      DockerSandboxConfigSchema.parse({ backend: "docker" }).socket,
      "/var/run/docker.sock",
    );
    assert.throws(
      () => DockerSandboxConfigSchema.parse({ backend: "docker", socket: "tcp://h:2375" }),
      /tcp:\/\//,
    );
    assert.throws(
      () => DockerSandboxConfigSchema.parse({ backend: "docker", bwrap: "x" }),
      /bwrap/,
    );
    assert.throws(
      () => DockerSandboxConfigSchema.parse({ backend: "docker", apiVersion: "1.43" }),
      /v1\.43/,
    );
    assert.equal(dockerSandbox.name, "docker");
  });

  test("create: limits → HostConfig, tmpfs /work and /tmp, locked down, network none", async () => {
    const b = await startBackend(fake, { limits: { pids: 64 } });
    const s = await b.create({
      limits: { memoryMb: 512, cpuSeconds: 2.5, diskMb: 100, fileMb: 8, openFiles: 32 },
      env: { FOO: "bar" },
    });
    const body = lastCreate(fake);
    assert.equal(body.Image, "python:3.12-slim");
    assert.deepEqual(
      [body.Entrypoint, body.Cmd, body.WorkingDir],
      [["sleep"], ["2147483647"], "/work"],
    );
    assert.deepEqual(body.Env, ["HOME=/work", "LANG=C.UTF-8", "FOO=bar"]);
    assert.equal(body.NetworkDisabled, true);
    assert.deepEqual(body.HostConfig, {
      Init: true,
      AutoRemove: true,
      NetworkMode: "none",
      Memory: 512 * MiB,
      MemorySwap: 512 * MiB,
      PidsLimit: 64,
      Ulimits: [
        { Name: "cpu", Soft: 3, Hard: 4 },
        { Name: "fsize", Soft: 8 * MiB, Hard: 8 * MiB },
        { Name: "nofile", Soft: 32, Hard: 32 },
      ],
      Tmpfs: {
        "/work": "rw,exec,nosuid,nodev,size=76800k,mode=1777",
        "/tmp": "rw,exec,nosuid,nodev,size=25600k,mode=1777",
      },
      ReadonlyRootfs: true,
      CapDrop: ["ALL"],
      SecurityOpt: ["no-new-privileges"],
    });
    assert.equal(fake.requestsTo("POST", new RegExp(`^/containers/${s.id}/start$`)).length, 1);
    const env = await s.exec(["sh", "-c", 'echo "$FOO $HOME"; pwd']);
    assert.match(env.stdout, /^bar \S+\/work\n\S+\/work\n$/); // the fake's dir for /work
    await s.close();
    await b.close();
  });

  test("exec: stdout, stderr, exit code, stdin, cwd, env, streaming", async () => {
    const s = await backend.create();
    const r = await s.exec(["sh", "-c", "echo out; echo err >&2; exit 3"]);
    assert.deepEqual(
      [r.exitCode, r.signal, r.stdout, r.stderr, r.limit, r.timedOut, r.cpuSeconds],
      [3, null, "out\n", "err\n", null, false, null],
    );
    assert.ok(r.wallSeconds > 0 && r.wallSeconds < 10);
    const cat = await s.exec(["cat"], { stdin: "hello\nworld" });
    assert.deepEqual([cat.exitCode, cat.stdout], [0, "hello\nworld"]);
    const big = Buffer.alloc(3 * MiB, "a");
    const wc = await s.exec(["wc", "-c"], { stdin: big });
    assert.deepEqual([wc.exitCode, wc.stdout.trim()], [0, String(3 * MiB)]);
    const noStdin = await s.exec(["cat"]);
    assert.deepEqual([noStdin.exitCode, noStdin.stdout], [0, ""]);
    await s.exec(["mkdir", "-p", "sub/dir"]);
    const chunks: string[] = [];
    const cwd = await s.exec(["sh", "-c", 'printf "%s" "$X"; pwd'], {
      cwd: "sub/dir",
      env: { X: "y" },
      onStdout: (c) => chunks.push(Buffer.from(c).toString()),
    });
    assert.match(cwd.stdout, /^y\S+\/work\/sub\/dir\n$/);
    assert.equal(chunks.join(""), cwd.stdout);
    const missing = await s.exec(["no-such-command", "x"]);
    assert.equal(missing.exitCode, 127);
    assert.match(missing.stderr, /no-such-command: not found/);
    const bytes = await s.exec(["sh", "-c", "printf 'a\\377b'"]);
    assert.equal(bytes.stdout, "a\uFFFDb");
    const execBody = fake.requestsTo("POST", /\/exec$/).at(-1)?.body as Record<string, unknown>;
    assert.deepEqual(
      [
        execBody.AttachStdin,
        execBody.AttachStdout,
        execBody.AttachStderr,
        execBody.Tty,
        execBody.WorkingDir,
      ],
      [false, true, true, false, "/work"],
    );
    // The wrapper's pid file is gone after a command that ended by itself.
    const container = fake.containers.get(s.id);
    assert.ok(container);
    assert.deepEqual(readdirSync(join(container.dir, "tmpfs", "tmp")), []);
    await assert.rejects(s.exec([]), /non-empty array of strings/);
    await assert.rejects(s.exec(["true"], { cwd: "../x" }), /"\.\."/);
    await assert.rejects(s.exec(["true"], { timeoutS: 0 }), /timeoutS/);
    await assert.rejects(s.exec(["true"], { maxOutputBytes: 1.5 }), /maxOutputBytes/);
    // A cwd that is not a directory: the protocol's error, as on bwrap, not `cd`'s exit 1.
    await s.exec(["touch", "plain"]);
    for (const cwd of ["missing", "plain"]) {
      await assert.rejects(
        s.exec(["pwd"], { cwd }),
        (e: Error) =>
          e instanceof SandboxError &&
          e.message === `cwd ${cwd} is not a directory in the sandbox's work dir`,
      );
    }
    await s.close();
  });

  test("timeout and abort: the command and what it started are killed; the sandbox goes on", async () => {
    const s = await backend.create();
    const r = await s.exec(["sh", "-c", "sleep 30 & echo $! > bg; wait"], { timeoutS: 0.5 });
    assert.deepEqual(
      [r.timedOut, r.limit, r.signal, r.exitCode],
      [true, "timeout", "SIGKILL", null],
    );
    assert.ok(r.wallSeconds >= 0.5 && r.wallSeconds < 10, `wall ${r.wallSeconds}`);
    const pid = Number(Buffer.from(await s.download("bg")).toString());
    assert.ok(await allGone([pid], 2000), "the background sleep outlived the timeout");
    const after = await s.exec(["echo", "alive"]);
    assert.deepEqual([after.exitCode, after.stdout], [0, "alive\n"]);

    const ac = new AbortController();
    setTimeout(() => ac.abort(), 200);
    const aborted = await s.exec(["sleep", "30"], { signal: ac.signal });
    assert.deepEqual(
      [aborted.timedOut, aborted.limit, aborted.signal],
      [false, "timeout", "SIGKILL"],
    );
    // Aborted before exec: killed at once, its output not waited for.
    const early = await s.exec(["sh", "-c", "sleep 30; echo late"], {
      signal: AbortSignal.abort(),
    });
    assert.deepEqual(
      [early.timedOut, early.limit, early.signal, early.stdout],
      [false, "timeout", "SIGKILL", ""],
    );
    assert.ok(early.wallSeconds < 10, `wall ${early.wallSeconds}`);
    await s.close();
  });

  test("output past maxOutputBytes is cut and kills the command", async () => {
    const s = await backend.create();
    const r = await s.exec(["sh", "-c", "while :; do echo xxxxxxxxxxxxxxx; done"], {
      maxOutputBytes: 1000,
    });
    assert.deepEqual(
      [r.stdoutTruncated, r.stderrTruncated, r.limit, r.signal],
      [true, false, "output", "SIGKILL"],
    );
    assert.equal(r.stdout.length, 1000);
    const small = await s.exec(["sh", "-c", "echo 123456789 >&2"], { maxOutputBytes: 4 });
    assert.deepEqual([small.stderr, small.stderrTruncated, small.limit], ["1234", true, "output"]);
    await s.close();
  });

  test("limits named: cpu (SIGXCPU), disk (SIGXFSZ, ENOSPC), memory (the container's OOM kill, an allocation refused)", async () => {
    const s = await backend.create({ limits: { cpuSeconds: 1, fileMb: 1 } });
    const cpu = await s.exec(["sh", "-c", "while :; do :; done"], { timeoutS: 20 });
    assert.deepEqual([cpu.limit, cpu.signal, cpu.timedOut], ["cpu", "SIGXCPU", false]);
    const file = await s.exec(["sh", "-c", "head -c 2000000 /dev/zero > big"]);
    assert.deepEqual([file.limit, file.signal], ["disk", "SIGXFSZ"]);
    const enospc = await s.exec(["sh", "-c", "echo 'write: No space left on device' >&2; exit 1"]);
    assert.equal(enospc.limit, "disk");
    const fork = await s.exec(["sh", "-c", "echo 'sh: 1: Cannot fork' >&2; exit 2"]);
    assert.equal(fork.limit, "pids");
    const bashFork = await s.exec([
      "sh",
      "-c",
      "echo 'bash: fork: retry: Resource temporarily unavailable' >&2; exit 1",
    ]);
    assert.equal(bashFork.limit, "pids");
    const fine = await s.exec(["sh", "-c", "echo 'Cannot fork' >&2"]);
    assert.equal(fine.limit, null); // exit 0: no limit stopped it
    const alloc = await s.exec(["sh", "-c", "echo 'MemoryError' >&2; exit 1"]);
    assert.deepEqual([alloc.limit, alloc.exitCode], ["memory", 1]); // as on bwrap (spec.ts)
    const status = await s.exec(["sh", "-c", "exit 137"]);
    assert.deepEqual(
      [status.exitCode, status.signal, status.limit], // 128+9 is SIGKILL on every backend
      [null, "SIGKILL", null],
    );
    assert.equal((await s.exec(["sh", "-c", "exit 160"])).exitCode, 160);
    const container = fake.containers.get(s.id);
    assert.ok(container);
    const oom = s.exec(["sleep", "30"]);
    while (container.execs.size === 0) await new Promise((r) => setTimeout(r, 20));
    fake.oomKill(s.id);
    const mem = await oom;
    assert.deepEqual([mem.limit, mem.signal, mem.timedOut], ["memory", "SIGKILL", false]);
    await s.close();
  });

  test("upload, download, snapshot: round trip, modes, nested paths, restore into a new sandbox", async () => {
    const s = await backend.create();
    await s.upload([
      { path: "a.txt", content: "alpha" },
      { path: "dir/run.sh", content: "#!/bin/sh\necho ran\n", mode: 0o755 },
      { path: "dir/deep/bin.dat", content: new Uint8Array([0, 1, 2, 255]) },
    ]);
    assert.equal(Buffer.from(await s.download("a.txt")).toString(), "alpha");
    assert.deepEqual([...(await s.download("dir/deep/bin.dat"))], [0, 1, 2, 255]);
    assert.equal((await s.exec(["./dir/run.sh"])).stdout, "ran\n");
    await s.exec(["sh", "-c", "echo made > made.txt; ln -s a.txt link; ln made.txt hard.txt"]);
    assert.equal(Buffer.from(await s.download("link")).toString(), "alpha"); // resolved inside
    const snap = await s.snapshot();
    assert.deepEqual(
      snap.files.map((f) => [f.path, f.mode, Buffer.from(f.content).toString("hex")]),
      [
        ["a.txt", 0o644, Buffer.from("alpha").toString("hex")],
        ["dir/deep/bin.dat", 0o644, "000102ff"],
        ["dir/run.sh", 0o755, Buffer.from("#!/bin/sh\necho ran\n").toString("hex")],
        ["hard.txt", 0o644, Buffer.from("made\n").toString("hex")],
        ["made.txt", 0o644, Buffer.from("made\n").toString("hex")],
      ],
    );
    await assert.rejects(
      s.download("nope.txt"),
      (e: Error) => e instanceof SandboxError && /nope\.txt/.test(e.message),
    );
    await assert.rejects(s.upload([{ path: "/etc/x", content: "" }]), /absolute/);
    await assert.rejects(s.download("a/../b"), /"\.\."/);
    // Files never travel by the archive routes: they cannot see a tmpfs mount (moby/moby#22020).
    assert.equal(
      fake.requestsTo("PUT", /\/archive$/).length + fake.requestsTo("GET", /\/archive$/).length,
      0,
    );
    await s.close();

    const restored = await backend.create({ snapshot: snap });
    assert.deepEqual((await restored.snapshot()).files, snap.files);
    assert.equal(
      (await restored.exec(["sh", "-c", "./dir/run.sh && cat a.txt"])).stdout,
      "ran\nalpha",
    );
    await restored.close();
  });

  test("an image the daemon lacks is pulled (with a tag); pull never, unknown and failing pulls are errors", async () => {
    const s = await backend.create({ image: "alpine:3.20" });
    const pulls = fake.requestsTo("POST", /^\/images\/create$/);
    assert.deepEqual(pulls.at(-1)?.query, { fromImage: "alpine", tag: "3.20" });
    assert.equal(lastCreate(fake).Image, "alpine:3.20");
    await s.close();

    const never = await startBackend(fake, { pull: "never" });
    const before = fake.requestsTo("POST", /^\/images\/create$/).length;
    await assert.rejects(
      never.create({ image: "ubuntu:24.04" }),
      /image "ubuntu:24\.04" is not on the Docker daemon and sandbox\.pull is "never": run `docker pull ubuntu:24\.04`.*No such image: ubuntu:24\.04/,
    );
    assert.equal(fake.requestsTo("POST", /^\/images\/create$/).length, before);
    await assert.rejects(
      backend.create({ image: "nosuch/img" }),
      /HTTP 404.*pull access denied for nosuch\/img/,
    );
    assert.deepEqual(fake.requestsTo("POST", /^\/images\/create$/).at(-1)?.query, {
      fromImage: "nosuch/img",
      tag: "latest",
    });
    await assert.rejects(
      backend.create({ image: "broken:1" }),
      /pulling broken:1 failed.*no space left on device/,
    );
  });

  test("network: the spec's, else the config's; none is NetworkMode none", async () => {
    const on = await backend.create({ network: true });
    assert.deepEqual(
      [lastCreate(fake).HostConfig.NetworkMode, lastCreate(fake).NetworkDisabled],
      ["bridge", false],
    );
    const open = await startBackend(fake, { network: true });
    const byConfig = await open.create();
    assert.deepEqual(
      [lastCreate(fake).HostConfig.NetworkMode, lastCreate(fake).NetworkDisabled],
      ["bridge", false],
    );
    const off = await open.create({ network: false });
    assert.deepEqual(
      [lastCreate(fake).HostConfig.NetworkMode, lastCreate(fake).NetworkDisabled],
      ["none", true],
    );
    await Promise.all([on.close(), byConfig.close(), off.close(), open.close()]);
  });

  test("refused before any container exists: host paths, unknown limits, bad env names", async () => {
    const creates = fake.requestsTo("POST", /^\/containers\/create$/).length;
    await assert.rejects(backend.create({ hostPaths: ["/opt/py"] }), /cannot mount host paths/);
    await assert.rejects(
      backend.create({ limits: { gpus: 1 } as never }),
      /unknown sandbox limit "gpus"/,
    );
    await assert.rejects(
      backend.create({ limits: { pids: -1 } }),
      /pids must be a positive number/,
    );
    await assert.rejects(backend.create({ env: { "A=B": "x" } }), /"A=B" is not a valid name/);
    assert.equal(fake.requestsTo("POST", /^\/containers\/create$/).length, creates);
  });

  test("the daemon's errors surface with its message", async () => {
    await assert.rejects(
      backend.create({ limits: { memoryMb: 1 } }),
      (e: Error) =>
        e instanceof SandboxError &&
        /HTTP 400\): Minimum memory limit allowed is 6MB/.test(e.message),
    );
    const s = await backend.create();
    const c = fake.containers.get(s.id);
    assert.ok(c);
    c.running = false; // stopped behind the backend's back
    await assert.rejects(
      s.exec(["true"]),
      new RegExp(`HTTP 409\\): container ${s.id} is not running`),
    );
    await s.close();
  });

  test("a SandboxPool over the backend: warm containers, used once, all removed at close", async () => {
    const b = await startBackend(fake);
    const before = fake.containers.size;
    const pool = new SandboxPool(b, { size: 2 });
    const out = await pool.use(async (s) => (await s.exec(["echo", "pooled"])).stdout);
    assert.equal(out, "pooled\n");
    const s = await pool.acquire();
    await s.upload([{ path: "x", content: "1" }]);
    await pool.release(s);
    assert.equal(fake.containers.has(s.id), false);
    const fresh = await pool.acquire();
    assert.deepEqual((await fresh.snapshot()).files, []); // never a used one
    await pool.close();
    await b.close();
    assert.equal(fake.containers.size, before);
  });

  test("close: removes the container, is idempotent, and every later call throws SandboxClosedError", async () => {
    const s = await backend.create();
    await s.close();
    await s.close();
    assert.equal(fake.requestsTo("DELETE", new RegExp(`^/containers/${s.id}$`)).length, 1);
    assert.deepEqual(fake.requestsTo("DELETE", new RegExp(`^/containers/${s.id}$`))[0]?.query, {
      force: "true",
    });
    assert.equal(fake.containers.has(s.id), false);
    await assert.rejects(s.exec(["true"]), SandboxClosedError);
    await assert.rejects(s.upload([]), SandboxClosedError);
    await assert.rejects(s.download("a"), SandboxClosedError);
    await assert.rejects(s.snapshot(), SandboxClosedError);

    const racing = await backend.create();
    const pending = racing.exec(["sleep", "30"]);
    while (fake.containers.get(racing.id)?.execs.size === 0)
      await new Promise((r) => setTimeout(r, 20));
    await racing.close();
    // As on bwrap: the exec close() cut short resolves as killed, saying so.
    const cut = await pending;
    assert.deepEqual(
      [cut.exitCode, cut.signal, cut.limit, cut.timedOut],
      [null, "SIGKILL", null, false],
    );
    assert.match(cut.stderr, /the sandbox ended: close\(\) removed its container\]$/);

    const b = await startBackend(fake);
    const left = await b.create();
    await b.close();
    assert.equal(fake.containers.has(left.id), false);
  });
});
