/**
 * Math-Verify, the reference checker, run from its own virtual environment: bench/results/
 * venv-math-verify (git-ignored; never the product's python/). The first run creates it with
 * `python3 -m venv` and installs the pinned package from PyPI; later runs reuse it when the pinned
 * version is what it holds. verify.py beside this file does the grading, one JSON line per pair.
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

/** The pinned reference, with the extra that brings the ANTLR runtime its LaTeX parser needs. */
const MATH_VERIFY_REQUIREMENT = "math-verify[antlr4-13-2]==0.9.0";
const VERSION = "0.9.0";

export interface MathVerifyVerdict {
  id: string;
  verdict: boolean | "error";
  ms: number;
  note?: string;
}

function installedVersion(python: string): string | undefined {
  try {
    return execFileSync(
      python,
      ["-c", "import importlib.metadata as m; print(m.version('math-verify'))"],
      { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] },
    ).trim();
  } catch {
    return undefined;
  }
}

/** The venv's interpreter, creating the venv and installing Math-Verify when needed. */
export function ensureMathVerify(venvDir: string, log: (line: string) => void): string {
  const python = join(venvDir, "bin", "python");
  if (existsSync(python) && installedVersion(python) === VERSION) return python;
  const started = Date.now();
  log(`creating ${venvDir} and installing ${MATH_VERIFY_REQUIREMENT} from PyPI (first run only)`);
  const run = (cmd: string, args: string[]) => {
    try {
      execFileSync(cmd, args, { stdio: ["ignore", "ignore", "pipe"] });
    } catch (e) {
      const stderr = String((e as { stderr?: Buffer }).stderr ?? "").slice(-2000);
      throw new Error(
        `${cmd} ${args.join(" ")} failed: ${stderr || (e as Error).message}\n` +
          "Math-Verify needs python3 (3.10 or newer, with the venv module) and network to PyPI.",
      );
    }
  };
  if (!existsSync(python)) run("python3", ["-m", "venv", venvDir]);
  run(python, [
    "-m",
    "pip",
    "install",
    "--quiet",
    "--disable-pip-version-check",
    MATH_VERIFY_REQUIREMENT,
  ]);
  const version = installedVersion(python);
  if (version !== VERSION)
    throw new Error(`installed math-verify is ${version ?? "missing"}, not ${VERSION}`);
  log(`installed in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  return python;
}

/** Math-Verify's verdict on every pair, in input order (one process, pairs streamed through it). */
export function runMathVerify(
  python: string,
  pairs: readonly { id: string; gold: string; response: string }[],
): Promise<MathVerifyVerdict[]> {
  const script = join(import.meta.dirname, "verify.py");
  return new Promise((resolve, reject) => {
    const child = spawn(python, [script], { stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr = (stderr + chunk).slice(-4000);
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) return reject(new Error(`verify.py exited ${code}: ${stderr}`));
      const verdicts = stdout
        .split("\n")
        .filter((l) => l.trim() !== "")
        .map((l) => JSON.parse(l) as MathVerifyVerdict);
      if (verdicts.length !== pairs.length) {
        return reject(new Error(`verify.py answered ${verdicts.length} of ${pairs.length} pairs`));
      }
      resolve(verdicts);
    });
    for (const p of pairs) {
      child.stdin.write(`${JSON.stringify({ id: p.id, gold: p.gold, response: p.response })}\n`);
    }
    child.stdin.end();
  });
}
