/**
 * Runs every benchmark in bench/ (each bench/*.ts but this one), one after the other, each in its
 * own process: gateway first, then render, then any others by name.
 *
 *   npm run bench [-- --only gateway,render] [-- gateway flags, e.g. --duration 3]
 *
 * Arguments other than --only go to bench/gateway.ts (the others take none). Exits non-zero
 * when a benchmark fails to run (not when a gateway target is missed; pass --strict for that).
 */
import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

interface Bench {
  name: string;
  script: string;
  takesArgs: boolean;
}

/** Every bench/*.ts but this file: gateway first, then render, then any others by name. */
function discover(): Bench[] {
  const first = ["gateway", "render"];
  const names = readdirSync(join(ROOT, "bench"))
    .filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts") && f !== "run.ts")
    .map((f) => f.slice(0, -3))
    .sort((a, b) => {
      const ia = first.indexOf(a);
      const ib = first.indexOf(b);
      if (ia >= 0 || ib >= 0) return (ia < 0 ? first.length : ia) - (ib < 0 ? first.length : ib);
      return a.localeCompare(b);
    });
  return names.map((name) => ({
    name,
    script: `bench/${name}.ts`,
    takesArgs: name === "gateway",
  }));
}

const BENCHES = discover();

const args = process.argv.slice(2);
let only: Set<string> | undefined;
const rest: string[] = [];
for (let i = 0; i < args.length; i++) {
  const a = args[i]!;
  if (a === "--only") {
    only = new Set((args[++i] ?? "").split(",").filter(Boolean));
  } else if (a.startsWith("--only=")) {
    only = new Set(a.slice("--only=".length).split(",").filter(Boolean));
  } else {
    rest.push(a);
  }
}
if (only) {
  const unknown = [...only].filter((n) => !BENCHES.some((b) => b.name === n));
  if (unknown.length > 0) {
    console.error(
      `unknown benchmark(s) ${unknown.join(", ")}; known: ${BENCHES.map((b) => b.name).join(", ")}`,
    );
    process.exit(2);
  }
}

function run(b: Bench): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", join(ROOT, b.script), ...(b.takesArgs ? rest : [])],
      { stdio: "inherit", cwd: ROOT },
    );
    const forward = (sig: NodeJS.Signals) => child.kill(sig);
    process.on("SIGINT", forward);
    process.on("SIGTERM", forward);
    child.on("exit", (code, signal) => {
      process.off("SIGINT", forward);
      process.off("SIGTERM", forward);
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}

const failed: string[] = [];
for (const b of BENCHES) {
  if (only && !only.has(b.name)) continue;
  console.log(`\n=== bench/${b.name} ===\n`);
  const t0 = performance.now();
  const code = await run(b);
  const s = ((performance.now() - t0) / 1000).toFixed(0);
  console.log(
    `\n=== bench/${b.name}: ${code === 0 ? "done" : `FAILED (exit ${code})`} in ${s} s ===`,
  );
  if (code !== 0) failed.push(b.name);
}
if (failed.length > 0) {
  console.error(`\nfailed: ${failed.join(", ")}`);
  process.exit(1);
}
