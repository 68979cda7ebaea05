/**
 * The trainer under torchrun (torchrun.ts, worker.ts): the launch a config asks for, the exact
 * command lines, and — with real torchrun and fixtures/fake_dist_worker.py (two gloo ranks, no
 * model) — the hello's world, one process group for every rank, and a rank that dies or raises
 * reported by its rank and traceback, never waited on. Five torchrun launches (~3–5 s each).
 * The interpreter is the backend's (RLLM_PYTHON, else python/.venv): it needs torch.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { allGone } from "../../testing/procs.js";
import { TorchBackendConfigSchema } from "./config.js";
import { resolvePython } from "./python-env.js";
import { startWorker } from "./serve.js";
import {
  describeGroupFailure,
  distributedLaunch,
  freeLocalEndpoint,
  orderFailures,
  parseFailureSummary,
  parseWorld,
  TorchrunGroup,
  torchrunArgs,
} from "./torchrun.js";
import { WorkerProcess } from "./worker.js";

const FAKE = join(import.meta.dirname, "fixtures", "fake_dist_worker.py");

/** The process group of `pid`, from /proc. */
function pgid(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
}

function startFake(mode: string): Promise<WorkerProcess> {
  return WorkerProcess.start({
    python: resolvePython(undefined),
    role: "trainer",
    entry: [FAKE],
    env: { FAKE_DIST_MODE: mode, FAKE_DIST_RANK: "1" },
    startupTimeoutMs: 60_000,
    distributed: { nproc: 2, nnodes: 1, collectiveTimeoutS: 30 },
  });
}

describe("the launch", () => {
  const config = (c: Record<string, unknown>) =>
    TorchBackendConfigSchema.parse({ model: "m", ...c });

  test("nproc 1 on one node is the plain launch, and the sampler always is", () => {
    assert.equal(distributedLaunch(config({}), "trainer"), undefined);
    assert.equal(distributedLaunch(config({ nproc: 4 }), "sampler"), undefined);
    assert.deepEqual(distributedLaunch(config({ nproc: 2 }), "trainer"), {
      nproc: 2,
      nnodes: 1,
      collectiveTimeoutS: 600,
    });
    assert.deepEqual(
      distributedLaunch(
        config({ nnodes: 2, rdzvEndpoint: "h:1", timeouts: { collectiveS: 9 } }),
        "trainer",
      ),
      { nproc: 1, nnodes: 2, rdzvEndpoint: "h:1", collectiveTimeoutS: 9 },
    );
  });

  test("node 0's torchrun line, and another node's (no socket, no exchange)", () => {
    const node = { nproc: 4, nnodes: 2, rdzvEndpoint: "10.0.0.1:29500", collectiveTimeoutS: 600 };
    assert.equal(
      torchrunArgs({ ...node, nodeRank: 0 }, { socket: "/x/rpc.sock", exchange: "/x" }).join(" "),
      "-m torch.distributed.run --rdzv-backend static --rdzv-endpoint 10.0.0.1:29500 --nnodes 2 --node-rank 0 --nproc-per-node 4 --max-restarts 0 --monitor-interval 0.5 -m rllm_worker --socket /x/rpc.sock --exchange /x --role trainer --collective-timeout-s 600",
    );
    assert.equal(
      torchrunArgs({ ...node, nodeRank: 1 }, {}).join(" "),
      "-m torch.distributed.run --rdzv-backend static --rdzv-endpoint 10.0.0.1:29500 --nnodes 2 --node-rank 1 --nproc-per-node 4 --max-restarts 0 --monitor-interval 0.5 -m rllm_worker --role trainer --collective-timeout-s 600",
    );
  });

  test("a hello whose world is missing or not the launch's is an error naming it", () => {
    const launch = { nproc: 2, nnodes: 1, collectiveTimeoutS: 1 };
    const rank = (r: number) => ({ rank: r, localRank: r, node: 0, pid: 10 + r, host: "h" });
    assert.equal(parseWorld({ size: 2, nodes: 1, ranks: [rank(1), rank(0)] }, launch).size, 2);
    assert.throws(
      () => parseWorld(undefined, launch),
      /has no "world", but it runs under torchrun \(backend\.nproc 2/,
    );
    assert.throws(
      () => parseWorld({ size: 2, nodes: 1, ranks: [rank(0)] }, launch),
      /reports 2 ranks on 1 nodes \(ranks 0\); the launch has 2 \(2 per node on 1\)/,
    );
    assert.throws(
      () => parseWorld({ size: 2, nodes: 1 }, launch),
      /"world" does not follow python\/PROTOCOL\.md: ranks/,
    );
  });

  test("a rank of hello's world is signalled only while its pid is still that rank", async () => {
    const sleeps = [0, 1].map(() => spawn("sleep", ["30"], { stdio: "ignore" }));
    try {
      const [a, b] = sleeps.map((c) => c.pid!);
      const group = await TorchrunGroup.create({
        nproc: 2,
        nnodes: 1,
        rdzvEndpoint: "127.0.0.1:1",
        collectiveTimeoutS: 1,
      });
      const rank = (r: number, pid: number) => ({ rank: r, localRank: r, node: 0, pid, host: "h" });
      group.checkHello({ world: { size: 2, nodes: 1, ranks: [rank(0, a!), rank(1, b!)] } });
      // `a` stands for torchrun: it has no children, so the ranks come from the world alone
      assert.deepEqual(group.rankGroups(a!, false).sort(), [a, b].sort());
      sleeps[1]!.kill("SIGKILL");
      await new Promise((done) => sleeps[1]!.once("exit", done)); // reaped: its pid may be reused
      assert.deepEqual(group.rankGroups(a!, false), [a], "an exited rank's pid is left alone");
    } finally {
      for (const c of sleeps) c.kill("SIGKILL");
    }
  });
});

test("node 0 logs the rllm worker line of every other node", async () => {
  const logs: string[] = [];
  const config = TorchBackendConfigSchema.parse({
    model: "m",
    python: "/nonexistent/python",
    nproc: 2,
    nnodes: 3,
    rdzvEndpoint: "10.0.0.1:29500",
  });
  await assert.rejects(
    startWorker(config, "trainer", { log: (l) => logs.push(l) }),
    /was not found/,
  );
  assert.deepEqual(logs, [
    "torch trainer: waiting for node 1 of 3; on it, run: rllm worker --nproc 2 --nnodes 3 --node-rank 1 --rdzv-endpoint 10.0.0.1:29500 --collective-timeout-s 600",
    "torch trainer: waiting for node 2 of 3; on it, run: rllm worker --nproc 2 --nnodes 3 --node-rank 2 --rdzv-endpoint 10.0.0.1:29500 --collective-timeout-s 600",
  ]);
});

describe("ranks under real torchrun", () => {
  test("hello's world names every rank; close() ends every rank", async () => {
    const w = await startFake("echo");
    const world = w.hello!.world!;
    const pids = world.ranks.map((r) => r.pid);
    try {
      assert.deepEqual(
        world.ranks.map((r) => [r.rank, r.localRank, r.node]),
        [
          [0, 0, 0],
          [1, 1, 0],
        ],
      );
      assert.equal(world.size, 2);
      assert.equal(w.hello!.pid, pids[0], "rank 0 speaks the RPC");
      // torchrun starts each rank in a group of its own (its killpg): worker.ts kills those too
      for (const pid of pids) assert.equal(pgid(pid), pid, `rank pid ${pid} leads its own group`);
      // every rank took part: 0 + 1
      assert.equal((await w.call("optim_step", {}, { timeoutMs: 30_000 })).sum, 1);
    } finally {
      await w.close();
    }
    assert.ok(await allGone([w.pid!, ...pids], 5_000), "no rank outlives close()");
  });

  test("a call past its timeout kills torchrun and every rank at once", async () => {
    const w = await startFake("echo");
    const pids = w.hello!.world!.ranks.map((r) => r.pid);
    try {
      await assert.rejects(
        w.call("forward_backward", {}, { timeoutMs: 1 }),
        /did not answer forward_backward within 0\.001 s; it was killed/,
      );
      assert.ok(await allGone([w.pid!, ...pids], 2_000), "SIGKILL reached every rank");
    } finally {
      await w.close();
    }
  });

  test("a node that never joins: the startup timeout names the rllm worker line, torchrun is killed", async () => {
    const rdzvEndpoint = await freeLocalEndpoint();
    const err = await WorkerProcess.start({
      python: resolvePython(undefined),
      role: "trainer",
      entry: [FAKE],
      startupTimeoutMs: 4_000,
      distributed: { nproc: 1, nnodes: 2, rdzvEndpoint, collectiveTimeoutS: 30 },
    }).catch((e: Error) => e);
    assert.ok(err instanceof Error);
    assert.match(
      err.message,
      /sent no hello within 4 s \(raise backend\.timeouts\.startupS; or nodes 1 to 1 never joined: run the logged `rllm worker` line on each\)/,
    );
    // no process of that launch is left (torchrun's command line names the endpoint)
    const launched = readdirSync("/proc")
      .filter((e) => /^\d+$/.test(e))
      .filter((e) => {
        try {
          return readFileSync(`/proc/${e}/cmdline`, "utf8").includes(rdzvEndpoint);
        } catch {
          return false;
        }
      });
    assert.deepEqual(launched, []);
  });

  test("a rank killed by SIGKILL mid-call: every pending call rejects naming it, in bounded time", async () => {
    const w = await startFake("sigkill");
    const pids = w.hello!.world!.ranks.map((r) => r.pid);
    try {
      const t0 = Date.now();
      const calls = [
        w.call("forward_backward", {}, { timeoutMs: 60_000 }),
        w.call("optim_step", {}, { timeoutMs: 60_000 }),
      ].map((p) =>
        p.then(
          () => new Error("resolved"),
          (e: Error) => e,
        ),
      );
      const [fb, opt] = await Promise.all(calls);
      assert.ok(Date.now() - t0 < 20_000, `rejected after ${Date.now() - t0} ms`);
      assert.match(
        fb!.message,
        new RegExp(
          `^forward_backward: the torch trainer's rank 1 of 2 \\(node 0, local rank 1, host [^,]+, pid ${pids[1]}\\) was killed by SIGKILL\\n  Signal 9 \\(SIGKILL\\) received by PID ${pids[1]}\\n`,
        ),
      );
      assert.match(
        fb!.message,
        /\nthen rank 0 of 2 \(node 0, local rank 0, .*Connection (closed|reset) by peer/,
      );
      assert.match(
        fb!.message,
        /torchrun ended every rank \(it exited with code 1\)\n--- worker stderr/,
      );
      assert.match(
        opt!.message,
        /^optim_step: the torch trainer's rank 1 of 2 .* was killed by SIGKILL/,
      );
      await assert.rejects(w.call("x", {}, { timeoutMs: 1_000 }), /rank 1 of 2/);
    } finally {
      await w.close();
    }
    assert.ok(await allGone([w.pid!, ...pids], 5_000));
  });

  test("a rank that raises: its traceback leads the error, the rank it took down follows", async () => {
    const w = await startFake("raise");
    const pids = w.hello!.world!.ranks.map((r) => r.pid);
    let stderr = "";
    try {
      const e = await w.call("forward_backward", {}, { timeoutMs: 60_000 }).catch((x: Error) => x);
      assert.ok(e instanceof Error);
      assert.match(
        e.message,
        /^forward_backward: the torch trainer's rank 1 of 2 \(node 0, local rank 1, host [^,]+, pid \d+\) exited with code 1\n {2}Traceback \(most recent call last\):\n[\s\S]*\n {2}RuntimeError: fake rank 1 failed in forward_backward\nthen rank 0 of 2 .*: RuntimeError: .*Connection (closed|reset) by peer/,
      );
      stderr = w.stderr;
    } finally {
      await w.close();
    }
    assert.ok(await allGone([w.pid!, ...pids], 5_000));
    // torchrun's own summary of this failure, parsed: both ranks, its root cause marked
    const failures = parseFailureSummary(stderr);
    // (rank 0 exits with 1, or torchrun's SIGTERM reaches it first)
    assert.deepEqual(failures.map((f) => f.rank).sort(), [0, 1]);
    assert.equal(failures.find((f) => f.rank === 1)!.exitCode, 1);
    assert.equal(failures.filter((f) => f.rootCause).length, 1);
    assert.equal(
      orderFailures(failures)[0]!.rank,
      1,
      "the raising rank is the cause, whatever torchrun's root cause",
    );
    assert.equal(describeGroupFailure("no summary here", { size: 2, nproc: 2 }), "");
  });
});
