/**
 * Where a torch worker runs: the package root, the interpreter, the environment, the exchange
 * directory, and the one command that installs what it needs. worker.ts (node 0), `rllm worker`
 * (the other nodes) and the test helpers that run rllm_worker's tools all take them from here.
 *
 * Decided here, once:
 *   - the interpreter is the configured one, else $RLLM_PYTHON, else python/.venv's, else python3;
 *   - python/ goes first on PYTHONPATH and output is unbuffered (tracebacks arrive whole);
 *   - the exchange directory is private (0700) and under /dev/shm when that is writable.
 */
import { accessSync, constants, existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

/** Where the package lives (src/backends/torch → the root; dist/backends/torch likewise). */
export const PACKAGE_ROOT = resolve(import.meta.dirname, "..", "..", "..");

/** The one command that installs the worker's environment. */
export const INSTALL_COMMAND = "bash python/install.sh";

/** The interpreter: `configured`, else $RLLM_PYTHON, else python/.venv's, else python3. */
export function resolvePython(
  configured: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): string {
  if (configured) return configured;
  if (env.RLLM_PYTHON) return env.RLLM_PYTHON;
  const venv = join(PACKAGE_ROOT, "python", ".venv", "bin", "python");
  return existsSync(venv) ? venv : "python3";
}

/** The environment a worker runs in: `extra` over Node's, python/ on PYTHONPATH, unbuffered. */
export function workerEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const pythonPath = join(PACKAGE_ROOT, "python");
  const env = { ...process.env, ...extra };
  env.PYTHONPATH = env.PYTHONPATH ? `${pythonPath}:${env.PYTHONPATH}` : pythonPath;
  env.PYTHONUNBUFFERED = "1";
  return env;
}

/** A private 0700 directory, under /dev/shm when it is writable. */
export function makeExchangeDir(): string {
  let base = tmpdir();
  try {
    accessSync("/dev/shm", constants.W_OK);
    base = "/dev/shm";
  } catch {
    // no /dev/shm (macOS) or not writable: the OS temp dir
  }
  return mkdtempSync(join(base, "rllm-torch-")); // mkdtemp creates it 0700
}
