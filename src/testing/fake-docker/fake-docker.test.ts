/**
 * The fake Docker daemon itself: the contract checks it makes, and the real `docker` CLI driving it
 * (so that the fake answers as a daemon does for a client we did not write).
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
import {
  Demuxer,
  DockerEngine,
  type DockerEngineError,
  splitImage,
} from "../../sandbox/docker/engine.js";
import { FakeDocker } from "./server.js";

const run = promisify(execFile);

describe("the fake daemon checks requests as the contract says", () => {
  let fake: FakeDocker;
  let engine: DockerEngine;
  before(async () => {
    fake = await FakeDocker.start({ images: ["python:3.12-slim"] });
    engine = new DockerEngine(fake.socketPath, "v1.43");
  });
  after(() => fake.close());

  const create = (json: unknown) => engine.request("POST", "/containers/create", { json });
  const status = (p: Promise<unknown>) =>
    p.then(
      () => 0,
      (e: DockerEngineError) => `${e.status} ${e.daemonMessage}`,
    );

  test("create bodies: unknown keys, wrong types, the daemon's own rules", async () => {
    const ok = { Image: "python:3.12-slim", Cmd: ["true"] };
    assert.equal(await status(create(ok)), 0);
    assert.match(
      String(await status(create({ ...ok, HostConfig: { Memroy: 1 } }))),
      /^400 invalid JSON.*Memroy/,
    );
    assert.match(
      String(await status(create({ ...ok, HostConfig: { Memory: "1g" } }))),
      /^400 invalid JSON: HostConfig\.Memory/,
    );
    assert.match(
      String(
        await status(
          create({ ...ok, HostConfig: { Ulimits: [{ Name: "cpu", Soft: 2, Hard: 1 }] } }),
        ),
      ),
      /^400 ulimit soft limit/,
    );
    assert.match(
      String(
        await status(
          create({ ...ok, HostConfig: { Ulimits: [{ Name: "cpus", Soft: 1, Hard: 1 }] } }),
        ),
      ),
      /^400 invalid JSON/,
    );
    assert.match(
      String(await status(create({ ...ok, HostConfig: { Tmpfs: { "/work": "size=1x" } } }))),
      /^400 .*invalid tmpfs option/,
    );
    assert.match(
      String(await status(create({ ...ok, HostConfig: { Memory: 1024 } }))),
      /^400 Minimum memory limit allowed is 6MB/,
    );
    assert.match(
      String(await status(create({ Image: "python:3.12-slim" }))),
      /^400 No command specified/,
    );
    assert.match(
      String(await status(create({ ...ok, Image: "nope" }))),
      /^404 No such image: nope/,
    );
    const text = engine.request("POST", "/containers/create", {
      body: Buffer.from("{}"),
      contentType: "text/plain",
    });
    assert.match(
      String(await status(text)),
      /^400 unsupported Content-Type header \(text\/plain\)/,
    );
  });

  test("exec: not running, empty Cmd, unknown keys, start only hijacked", async () => {
    const { Id } = await engine.json<{ Id: string }>("POST", "/containers/create", {
      json: { Image: "python:3.12-slim", Cmd: ["true"] },
    });
    const exec = (json: unknown) =>
      engine.json<{ Id: string }>("POST", `/containers/${Id}/exec`, { json });
    assert.match(
      String(await status(exec({ Cmd: ["true"] }))),
      new RegExp(`^409 container ${Id} is not running`),
    );
    await engine.request("POST", `/containers/${Id}/start`);
    assert.match(String(await status(exec({ Cmd: [] }))), /^400 No exec command specified/);
    assert.match(
      String(await status(exec({ Cmd: ["true"], Stdin: true }))),
      /^400 invalid JSON.*Stdin/,
    );
    const e = await exec({ Cmd: ["true"], AttachStdout: true });
    const plain = engine.request("POST", `/exec/${e.Id}/start`, {
      json: { Detach: false, Tty: false },
    });
    assert.match(String(await status(plain)), /^400 .*hijacked/);
    assert.match(
      String(await status(engine.request("GET", "/exec/nope/json"))),
      /^404 No such exec instance: nope/,
    );
    assert.match(
      String(await status(engine.request("DELETE", "/containers/nope"))),
      /^404 No such container: nope/,
    );
  });

  test("client pieces: frames split anywhere, image refs", () => {
    const frames: [number, string][] = [];
    const d = new Demuxer((n, p) => frames.push([n, p.toString()]));
    const frame = (n: number, s: string) => {
      const h = Buffer.alloc(8);
      h[0] = n;
      h.writeUInt32BE(Buffer.byteLength(s), 4);
      return Buffer.concat([h, Buffer.from(s)]);
    };
    const all = Buffer.concat([frame(1, "hello"), frame(2, "err"), frame(1, "")]);
    for (let i = 0; i < all.length; i += 3) d.push(all.subarray(i, i + 3));
    assert.deepEqual(frames, [
      [1, "hello"],
      [2, "err"],
      [1, ""],
    ]);
    assert.deepEqual(splitImage("python:3.12-slim"), { name: "python", tag: "3.12-slim" });
    assert.deepEqual(splitImage("localhost:5000/img"), {
      name: "localhost:5000/img",
      tag: "latest",
    });
    assert.deepEqual(splitImage("img@sha256:abc"), { name: "img", tag: "sha256:abc" });
  });
});

const dockerCli = await run("docker", ["--version"]).then(
  () => true,
  () => false,
);

describe("the fake daemon driven by the real docker CLI", {
  skip: !dockerCli && "no docker CLI installed",
}, () => {
  let fake: FakeDocker;
  let env: NodeJS.ProcessEnv;
  const docker = (args: string[], input?: string) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      const child = execFile("docker", args, { env }, (err, stdout, stderr) =>
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
      child.stdin?.end(input);
    });
  before(async () => {
    fake = await FakeDocker.start({ registry: ["busybox"] });
    env = {
      ...process.env,
      DOCKER_HOST: `unix://${fake.socketPath}`,
      DOCKER_CONFIG: join(fake.socketPath, ".."),
    };
  });
  after(() => fake.close());

  test("create (pulling), start, exec, exec -i, cp both ways, rm -f", async () => {
    const created = await docker(["create", "--name", "c1", "busybox", "sleep", "1000"]);
    assert.equal(created.code, 0, created.stderr);
    assert.match(created.stderr, /Downloaded newer image for busybox:latest/);
    assert.deepEqual(fake.requestsTo("POST", /^\/images\/create$/)[0]?.query, {
      fromImage: "docker.io/library/busybox",
      tag: "latest",
    });
    assert.equal((await docker(["start", "c1"])).code, 0);
    const ex = await docker(["exec", "c1", "sh", "-c", "echo out; echo err >&2; exit 3"]);
    assert.deepEqual([ex.code, ex.stdout, ex.stderr], [3, "out\n", "err\n"]);
    const piped = await docker(["exec", "-i", "c1", "cat"], "piped stdin");
    assert.deepEqual([piped.code, piped.stdout], [0, "piped stdin"]);
    const missing = await docker(["exec", "c1", "no-such-binary"]);
    assert.equal(missing.code, 127);

    const src = join(fake.socketPath, "..", "in.txt");
    await run("sh", ["-c", `printf data > ${src}`]);
    const cpIn = await docker(["cp", src, "c1:/in.txt"]);
    assert.equal(cpIn.code, 0, cpIn.stderr);
    const out = join(fake.socketPath, "..", "out.txt");
    const cpOut = await docker(["cp", "c1:/in.txt", out]);
    assert.equal(cpOut.code, 0, cpOut.stderr);
    assert.equal(readFileSync(out, "utf8"), "data");
    assert.equal(fake.requestsTo("PUT", /\/archive$/)[0]?.query.path, "/");

    const notRunning = await docker(["rm", "c1"]);
    assert.notEqual(notRunning.code, 0);
    assert.match(
      notRunning.stderr,
      /container is running: stop the container before removing or force remove/,
    );
    assert.equal((await docker(["rm", "-f", "c1"])).code, 0);
    assert.equal(fake.containers.size, 0);
    // Every body the CLI sent passed the fake's strict contract (a 400 would have failed a command).
    assert.ok(fake.requests.every((r) => r.version === null || r.version === "1.47"));
  });
});
