/**
 * `rllm worker`: node R ≥ 1 of a torch trainer that spans several machines (python/PROTOCOL.md).
 * Node 0 runs `rllm train ... --backend torch --nnodes M --rdzv-endpoint H:P` and logs this
 * command for each other node; here it prints the exact torchrun line and runs it in the
 * foreground — Ctrl-C and SIGTERM go to torchrun (which stops its ranks), and its exit code is
 * this command's. `--print` only prints.
 *
 *   rllm worker --nproc 8 --nnodes 2 --node-rank 1 --rdzv-endpoint 10.0.0.1:29500
 */
import type { ChildProcess } from "node:child_process";
import { Command } from "commander";
import { resolvePython, workerEnv } from "../backends/torch/python-env.js";
import { torchrunArgs } from "../backends/torch/torchrun.js";
import { ConfigError } from "../config/index.js";
import { rowDefault, WORKER_FLAGS } from "./flag-tables.js";
import { addFlags, type FlagValues } from "./flags.js";
import { runForeground, shellQuote } from "./shell.js";

export type WorkerFlags = FlagValues<typeof WORKER_FLAGS>;

/** What a node runs: the interpreter, its arguments, its environment and the line to show. */
export interface NodeCommand {
  python: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  /** `PYTHONPATH=… <python> -m torch.distributed.run …`, quoted for a POSIX shell. */
  line: string;
}

/** The torchrun command of node `--node-rank`; a rank outside 1..nnodes−1 is an error. */
export function nodeCommand(f: WorkerFlags, env: NodeJS.ProcessEnv = process.env): NodeCommand {
  const { nproc, nnodes, nodeRank, rdzvEndpoint } = f;
  if (nproc === undefined || nnodes === undefined || nodeRank === undefined || !rdzvEndpoint)
    throw new ConfigError(
      "rllm worker needs --nproc, --nnodes, --node-rank and --rdzv-endpoint (node 0's rllm train logs the whole command)",
    );
  if (nodeRank >= nnodes)
    throw new ConfigError(
      `--node-rank ${nodeRank} is not a node of --nnodes ${nnodes}: the other nodes are 1 to ${nnodes - 1} (node 0 runs rllm train)`,
    );
  const collectiveTimeoutS =
    f.collectiveTimeoutS ?? Number(rowDefault(WORKER_FLAGS, "--collective-timeout-s"));
  const python = resolvePython(f.python, env);
  const args = torchrunArgs({ nproc, nnodes, nodeRank, rdzvEndpoint, collectiveTimeoutS }, {});
  const runEnv = workerEnv({ ...env, PYTHONPATH: env.PYTHONPATH });
  const line = [`PYTHONPATH=${shellQuote(runEnv.PYTHONPATH!)}`, python, ...args]
    .map((a, i) => (i === 0 ? a : shellQuote(a)))
    .join(" ");
  return { python, args, env: runEnv, line };
}

/** Starts node `cmd` in the foreground (shell.ts's runForeground: signals, exit code). */
export function startNodeCommand(
  cmd: NodeCommand,
  stdio: "inherit" | "ignore" = "inherit",
): { child: ChildProcess; exited: Promise<number> } {
  return runForeground(
    { argv: [cmd.python, ...cmd.args], env: cmd.env },
    {
      stdio,
      notFound: `the Python interpreter ${cmd.python} was not found; pass --python or set RLLM_PYTHON to one with torch, transformers and peft`,
    },
  );
}

export function workerCommand(): Command {
  const cmd = new Command("worker").description(
    "Start node R ≥ 1 of a torch trainer on several machines (node 0 runs `rllm train --backend torch --nnodes M --rdzv-endpoint H:P` and logs this command): prints the torchrun line and runs it in the foreground.",
  );
  return addFlags(cmd, WORKER_FLAGS).action(async (flags: WorkerFlags) => {
    const c = nodeCommand(flags);
    console.log(c.line);
    if (!flags.print) process.exitCode = await startNodeCommand(c).exited;
  });
}
