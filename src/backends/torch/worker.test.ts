import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { allGone, running } from "../../testing/procs.js";
import { PACKAGE_ROOT, resolvePython } from "./python-env.js";
import { WorkerError, type WorkerHello, WorkerProcess } from "./worker.js";

const FAKE = join(import.meta.dirname, "fixtures", "fake_worker.py");

function startFake(
  mode: string,
  extra: { log?: (l: string) => void; startupTimeoutMs?: number } = {},
) {
  return WorkerProcess.start({
    python: "python3",
    role: "trainer",
    entry: [FAKE],
    env: { FAKE_WORKER_MODE: mode },
    startupTimeoutMs: extra.startupTimeoutMs ?? 10_000,
    ...(extra.log ? { log: extra.log } : {}),
  });
}

const gone = (pid: number, ms = 3_000) => allGone([pid], ms);

test("a call's result, an error reply with its traceback, events and log lines; close ends it", async () => {
  const logs: string[] = [];
  const w = await startFake("echo", { log: (l) => logs.push(l) });
  const pid = w.pid!;
  try {
    assert.equal(w.hello?.role, "trainer");
    assert.equal((w.hello as WorkerHello).pid, pid, "the worker is the spawned process");
    assert.ok(existsSync(w.exchange));
    assert.deepEqual(await w.call("init", { model: "m" }, { timeoutMs: 5_000 }), {
      method: "init",
      params: { model: "m" },
    });
    const err = await w.call("fail", {}, { timeoutMs: 5_000 }).catch((e: unknown) => e);
    assert.ok(err instanceof WorkerError);
    assert.equal(err.type, "ValueError");
    assert.match(err.message, /^fail: ValueError: bad params\nTraceback/);
    const steps: Record<string, unknown>[] = [];
    await w.call("generate", {}, { timeoutMs: 5_000, onEvent: (e) => steps.push(e) });
    assert.deepEqual(
      steps.map((s) => s.tokens),
      [[7], [8]],
    );
    assert.deepEqual(logs, ["[torch trainer] generating"]);
    // several calls in flight are answered in order, each to its own caller
    const many = await Promise.all([1, 2, 3].map((i) => w.call("x", { i }, { timeoutMs: 5_000 })));
    assert.deepEqual(
      many.map((r) => (r.params as { i: number }).i),
      [1, 2, 3],
    );
  } finally {
    await w.close();
  }
  assert.ok(await gone(pid), "the worker exited");
  assert.equal(existsSync(w.exchange), false, "the exchange dir is removed");
  await assert.rejects(w.call("x", {}, { timeoutMs: 1_000 }), /worker is closed/);
});

test("a call past its timeout kills the worker's group and rejects every pending call", async () => {
  const w = await startFake("hang");
  const pid = w.pid!;
  const grandchild = (w.hello as unknown as { childPid: number }).childPid;
  assert.ok(running(grandchild));
  try {
    const t0 = Date.now();
    const a = w.call("forward_backward", {}, { timeoutMs: 300 });
    const b = w.call("optim_step", {}, { timeoutMs: 60_000 });
    await assert.rejects(
      a,
      /forward_backward: .*did not answer forward_backward within 0\.3 s; it was killed \(raise backend\.timeouts\.callS/,
    );
    await assert.rejects(b, /optim_step: .*did not answer forward_backward within 0\.3 s/);
    assert.ok(Date.now() - t0 < 5_000);
    assert.ok(await gone(pid), "the worker is killed");
    assert.ok(await gone(grandchild), "what the worker started is killed with it");
    await assert.rejects(w.call("x", {}, { timeoutMs: 1_000 }), /did not answer/);
  } finally {
    await w.close();
  }
});

test("a worker that dies mid-call rejects with its exit code and traceback", async () => {
  const w = await startFake("die");
  const pid = w.pid!;
  try {
    const err = await w.call("forward_backward", {}, { timeoutMs: 10_000 }).catch((e: Error) => e);
    assert.ok(err instanceof Error);
    assert.match(err.message, /forward_backward: the torch trainer worker exited with code 1/);
    assert.match(err.message, /Traceback \(most recent call last\)/);
    assert.match(err.message, /RuntimeError: fake worker crashed in forward_backward/);
    assert.equal(w.alive, false);
    await assert.rejects(w.call("x", {}, { timeoutMs: 1_000 }), /exited with code 1/);
    assert.ok(await gone(pid));
  } finally {
    await w.close();
  }
});

for (const [mode, want] of [
  ["malformed", /sent a line that is not JSON: this is not json/],
  ["unknown", /sent a reply to no pending call: .*"id": 1001/],
] as const) {
  test(`a ${mode} reply is an error naming it, and the worker is killed`, async () => {
    const w = await startFake(mode);
    const pid = w.pid!;
    try {
      await assert.rejects(w.call("init", {}, { timeoutMs: 10_000 }), want);
      assert.ok(await gone(pid));
    } finally {
      await w.close();
    }
  });
}

test("a fatal hello is a startup error with its message and the install command", async () => {
  await assert.rejects(
    startFake("fatal"),
    /the torch trainer worker cannot run: torch 2\.1\.0 is too old \(need >= 2\.11\); install what it needs with `bash python\/install\.sh`/,
  );
});

test("a missing interpreter is a startup error naming it and the install command", async () => {
  await assert.rejects(
    WorkerProcess.start({
      python: "/nonexistent/bin/python",
      role: "sampler",
      startupTimeoutMs: 5_000,
    }),
    /the Python interpreter \/nonexistent\/bin\/python was not found; install the worker's environment with `bash python\/install\.sh`/,
  );
});

test("a worker that never says hello is killed at the startup timeout", async () => {
  const err = await WorkerProcess.start({
    python: "python3",
    role: "trainer",
    entry: [
      "-c",
      "import sys, time; print('importing torch', file=sys.stderr, flush=True); time.sleep(60)",
    ],
    // long enough for python3 to start and print under a loaded machine (CI ran 0.5 s out)
    startupTimeoutMs: 3000,
  }).catch((e: Error) => e);
  assert.ok(err instanceof Error);
  assert.match(err.message, /sent no hello within 3 s \(raise backend\.timeouts\.startupS\)/);
  assert.match(err.message, /importing torch/);
});

test("the interpreter: the configured one, else RLLM_PYTHON, else the venv's, else python3", () => {
  assert.equal(resolvePython("/x/python", { RLLM_PYTHON: "/y" }), "/x/python");
  assert.equal(resolvePython(undefined, { RLLM_PYTHON: "/y" }), "/y");
  const venv = join(PACKAGE_ROOT, "python", ".venv", "bin", "python");
  assert.equal(resolvePython(undefined, {}), existsSync(venv) ? venv : "python3");
  assert.ok(existsSync(join(PACKAGE_ROOT, "python", "PROTOCOL.md")), "PACKAGE_ROOT is the root");
});

test("when Node exits, or stops on Ctrl-C with no SIGINT listener, the worker groups are killed", async () => {
  const worker = join(import.meta.dirname, "worker.ts");
  for (const how of ["exit", "SIGINT"] as const) {
    const script = `
      const { WorkerProcess } = await import(${JSON.stringify(pathToFileURL(worker).href)});
      const w = await WorkerProcess.start({ python: "python3", role: "trainer", entry: [${JSON.stringify(FAKE)}],
        env: { FAKE_WORKER_MODE: "hang" }, startupTimeoutMs: 10000 });
      console.log(JSON.stringify({ pid: w.pid, child: w.hello.childPid, exchange: w.exchange }));
      ${how === "exit" ? "process.exit(0);" : "setInterval(() => {}, 1000);"}`;
    const node = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    const line = await new Promise<string>((ok) =>
      node.stdout.once("data", (b: Buffer) => ok(String(b))),
    );
    const { pid, child, exchange } = JSON.parse(line) as {
      pid: number;
      child: number;
      exchange: string;
    };
    if (how === "SIGINT") node.kill("SIGINT");
    const code = await new Promise<number | null>((ok) => node.once("exit", (c) => ok(c)));
    assert.equal(code, how === "exit" ? 0 : 130);
    assert.ok(await gone(pid), `${how}: the worker is killed`);
    assert.ok(await gone(child), `${how}: what it started is killed`);
    assert.equal(existsSync(exchange), false, `${how}: the exchange dir is removed`);
  }
});

test("an onEvent callback that throws fails its call, not the worker", async () => {
  const w = await startFake("echo");
  try {
    await assert.rejects(
      w.call(
        "generate",
        {},
        {
          timeoutMs: 5_000,
          onEvent: () => {
            throw new RangeError("token id 151909 is outside the tokenizer's vocabulary");
          },
        },
      ),
      /RangeError: token id 151909/,
    );
    assert.ok(w.alive);
    assert.equal((await w.call("x", {}, { timeoutMs: 5_000 })).method, "x");
  } finally {
    await w.close();
  }
});
