/**
 * `rllm worker` (cli/worker.ts): the torchrun line of node R ≥ 1, `--print`, bad flags, and the
 * foreground run passing the exit code through. No torchrun starts here (the two-node run with
 * the real worker is backends/torch/dist.test.ts's).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, test } from "node:test";
import { Command } from "commander";
import { PACKAGE_ROOT } from "../backends/torch/python-env.js";
import { nodeCommand, startNodeCommand, type WorkerFlags, workerCommand } from "./worker.js";

/** Parses `argv` as `rllm worker`; returns the flags, what it printed, or the error. */
async function run(argv: string[]): Promise<{ out: string[]; flags: WorkerFlags }> {
  const out: string[] = [];
  const log = console.log;
  console.log = (...a: unknown[]) => out.push(a.join(" "));
  const cmd = workerCommand()
    .exitOverride()
    .configureOutput({ writeErr: () => undefined });
  try {
    await new Command().addCommand(cmd).parseAsync(["worker", ...argv], { from: "user" });
  } finally {
    console.log = log;
  }
  return { out, flags: cmd.opts() };
}

const FLAGS = "--nproc 4 --nnodes 2 --node-rank 1 --rdzv-endpoint 10.0.0.1:29500".split(" ");

describe("rllm worker", () => {
  test("--print prints node R's exact torchrun line and runs nothing", async () => {
    const { out } = await run([...FLAGS, "--python", "/opt/py/bin/python", "--print"]);
    assert.deepEqual(out, [
      `PYTHONPATH=${join(PACKAGE_ROOT, "python")}${process.env.PYTHONPATH ? `:${process.env.PYTHONPATH}` : ""} /opt/py/bin/python -m torch.distributed.run --rdzv-backend static --rdzv-endpoint 10.0.0.1:29500 --nnodes 2 --node-rank 1 --nproc-per-node 4 --max-restarts 0 --monitor-interval 0.5 -m rllm_worker --role trainer --collective-timeout-s 600`,
    ]);
  });

  test("the interpreter defaults to RLLM_PYTHON; the collective timeout is node 0's", () => {
    const c = nodeCommand(
      {
        nproc: 1,
        nnodes: 3,
        nodeRank: 2,
        rdzvEndpoint: "[fe80::1]:29500",
        collectiveTimeoutS: 30,
      },
      { RLLM_PYTHON: "/venv/bin/python", PYTHONPATH: "/extra dir" },
    );
    assert.equal(c.python, "/venv/bin/python");
    assert.equal(c.env.PYTHONPATH, `${join(PACKAGE_ROOT, "python")}:/extra dir`);
    assert.match(
      c.line,
      /^PYTHONPATH='.*:\/extra dir' \/venv\/bin\/python -m torch\.distributed\.run /,
    );
    assert.match(
      c.line,
      / --rdzv-endpoint '\[fe80::1\]:29500' --nnodes 3 --node-rank 2 --nproc-per-node 1 /,
    );
    assert.match(c.line, / --collective-timeout-s 30$/);
  });

  const bad: [string[], RegExp][] = [
    [["--nproc", "4", "--nnodes", "2", "--node-rank", "1"], /required option '--rdzv-endpoint/],
    [
      ["--nproc", "4", "--nnodes", "2", "--node-rank", "2", "--rdzv-endpoint", "h:1"],
      /--node-rank 2 is not a node of --nnodes 2: the other nodes are 1 to 1 \(node 0 runs rllm train\)/,
    ],
    [
      ["--nproc", "4", "--nnodes", "2", "--node-rank", "0", "--rdzv-endpoint", "h:1"],
      /--node-rank must be an integer in \[1, 1023\], got "0"/,
    ],
    [
      ["--nproc", "4", "--nnodes", "1", "--node-rank", "1", "--rdzv-endpoint", "h:1"],
      /--nnodes must be an integer in \[2, 1024\], got "1"/,
    ],
    [
      ["--nproc", "0", "--nnodes", "2", "--node-rank", "1", "--rdzv-endpoint", "h:1"],
      /--nproc must be an integer in \[1, 1024\], got "0"/,
    ],
    [
      ["--nproc", "1", "--nnodes", "2", "--node-rank", "1", "--rdzv-endpoint", "h"],
      /--rdzv-endpoint "h" is not "host:port" \(e\.g\. 10\.0\.0\.1:29500\)/,
    ],
    [
      [...FLAGS, "--collective-timeout-s", "0"],
      /--collective-timeout-s 0: must be a positive number of seconds/,
    ],
  ];
  for (const [argv, want] of bad)
    test(`${argv.join(" ")} is an error naming the flag`, async () => {
      await assert.rejects(run([...argv, "--print"]), want);
    });

  test("runs torchrun's line in the foreground (shell.ts), naming a missing interpreter", async () => {
    const cmd = (code: string) => ({
      python: "python3",
      args: ["-c", code],
      env: process.env,
      line: "",
    });
    assert.equal(await startNodeCommand(cmd("import sys; sys.exit(7)"), "ignore").exited, 7);
    await assert.rejects(
      startNodeCommand({ ...cmd(""), python: "/nonexistent/python" }, "ignore").exited,
      /the Python interpreter \/nonexistent\/python was not found; pass --python or set RLLM_PYTHON/,
    );
  });
});
