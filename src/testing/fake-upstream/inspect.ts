/**
 * Does a directory load as a real server would load it? `python -m rllm_worker.inspect_weights
 * --serve` answers (LoRA: peft on the base model; full: transformers), one process for every fake
 * server of this Node process, started on first use: the imports (torch, transformers, peft) cost
 * seconds, a check of a tiny model much less. Each directory is checked once per version of it
 * (its path and modification time), unless the check failed because the inspector died or did
 * not start (then the next asks again, in a new one). The process ends with its stdin, when Node
 * exits; it does not keep Node alive while no check is pending.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { PACKAGE_ROOT, resolvePython } from "../../backends/torch/python-env.js";

type Pending = (reason: string | undefined) => void;

/** How a check's reason starts when the inspector, not the directory, failed. */
const INSPECTOR_GONE = "the weights inspector exited";

let child: ChildProcessWithoutNullStreams | undefined;
const pending: Pending[] = [];
const checked = new Map<string, Promise<string | undefined>>();

/** The reason `dir` does not load as `kind`, or undefined when it loads. */
export function inspect(
  dir: string,
  kind: "lora" | "full",
  base: string | undefined,
): Promise<string | undefined> {
  if (!existsSync(dir)) return Promise.resolve(`${dir} does not exist`);
  const key = `${kind}\0${dir}\0${base}\0${statSync(dir).mtimeMs}`;
  let p = checked.get(key);
  if (!p) {
    p = new Promise<string | undefined>((resolve) => {
      const c = inspector();
      pending.push(resolve);
      hold(true);
      c.stdin.write(`${JSON.stringify({ dir, kind, ...(base ? { base } : {}) })}\n`);
    });
    checked.set(key, p);
    // a failure because the inspector died says nothing of the directory: check it again
    void p.then((reason) => {
      if (reason?.startsWith(INSPECTOR_GONE)) checked.delete(key);
    });
  }
  return p;
}

function inspector(): ChildProcessWithoutNullStreams {
  if (child) return child;
  const c = spawn(resolvePython(undefined), ["-m", "rllm_worker.inspect_weights", "--serve"], {
    env: { ...process.env, PYTHONPATH: join(PACKAGE_ROOT, "python") },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  c.stderr.on("data", (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-2000);
  });
  createInterface({ input: c.stdout }).on("line", (line) => {
    const reply = JSON.parse(line) as { ok: boolean; error?: string };
    pending.shift()?.(reply.ok ? undefined : (reply.error ?? "no reason given"));
    if (pending.length === 0) hold(false);
  });
  const gone = (why: string) => {
    if (child === c) child = undefined;
    for (const r of pending.splice(0)) r(`${INSPECTOR_GONE} (${why})`);
  };
  c.on("exit", (code) => gone(`${code}: ${stderr.trim().split("\n").pop()}`));
  // a python that cannot start (RLLM_PYTHON wrong): the checks fail, not the process
  c.on("error", (e) => gone(e.message));
  c.stdin.on("error", () => {}); // a write to a child that never started; "error" says why
  child = c;
  return c;
}

/** Keeps Node alive while checks are pending, and not otherwise. */
function hold(on: boolean): void {
  if (!child) return;
  // the pipes are sockets, which can be unref'd like the process
  const handles = [child, child.stdin, child.stdout, child.stderr] as unknown as {
    ref(): void;
    unref(): void;
  }[];
  for (const h of handles) {
    if (on) h.ref();
    else h.unref();
  }
}
