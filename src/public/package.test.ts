/**
 * The package as a user gets it: built with tsc (tsconfig.build.json, a fresh build into a temp
 * directory, so a stale dist/ cannot pass), installed as node_modules/rllm of a throwaway project,
 * and imported by name — `rllm`, `rllm/algorithms`, `rllm/backend`, `rllm/gateway` — from plain
 * ESM (each subpath used, not only loaded) and from TypeScript (the `types` conditions resolve).
 * `rllm/backend` must stay light: a backend package depends on it without the local model's
 * worker threads, the gateway's HTTP server or SQLite.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const require = createRequire(import.meta.url);
const tsc = require.resolve("typescript/bin/tsc");

let work: string;
let app: string;
let pkg: string;

function run(args: string[], cwd: string): string {
  try {
    return execFileSync(process.execPath, args, { cwd, encoding: "utf8", stdio: "pipe" });
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${args.join(" ")} failed:\n${err.stdout ?? ""}${err.stderr ?? err.message}`);
  }
}

before(() => {
  work = mkdtempSync(join(tmpdir(), "rllm-package-"));
  app = join(work, "app");
  pkg = join(app, "node_modules", "rllm");
  mkdirSync(pkg, { recursive: true });
  cpSync(join(root, "package.json"), join(pkg, "package.json"));
  // rllm's own dependencies, where Node and tsc look for them from dist/.
  symlinkSync(join(root, "node_modules"), join(pkg, "node_modules"), "dir");
  run(
    [
      tsc,
      "-p",
      join(root, "tsconfig.build.json"),
      "--outDir",
      join(pkg, "dist"),
      "--sourceMap",
      "false",
    ],
    root,
  );
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "app", type: "module" }));
});

after(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** The modules a built file reaches through static imports: files under dist/, and bare names. */
function importGraph(entry: string): { files: string[]; packages: string[] } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    const source = readFileSync(file, "utf8");
    for (const m of source.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)"([^"]+)"/g)) {
      const spec = m[1]!;
      if (spec.startsWith(".")) visit(resolve(dirname(file), spec));
      else packages.add(spec);
    }
  };
  visit(entry);
  return {
    files: [...files].map((f) => relative(join(pkg, "dist"), f)).sort(),
    packages: [...packages].sort(),
  };
}

test("rllm/backend reaches only the SPI, the loss maths and the data types", () => {
  const { files, packages } = importGraph(join(pkg, "dist", "public", "backend.js"));
  const heavy = files.filter((f) => !/^(public|algorithms|types)\/|^backends\/spi\.js$/.test(f));
  assert.deepEqual(
    heavy,
    [],
    "rllm/backend must not import the local backend, gateway, store, ...",
  );
  assert.deepEqual(packages, ["zod"]);
});

test("each entry point imports by its package name and works", () => {
  const script = `
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

// rllm/backend first and alone: nothing heavy may load with it.
const backend = await import("rllm/backend");
const cjs = () => Object.keys(createRequire(import.meta.url).cache);
assert(!process.moduleLoadList.includes("NativeModule worker_threads"), "rllm/backend loaded worker_threads");
assert(!process.moduleLoadList.includes("NativeModule http"), "rllm/backend loaded http");
assert(!cjs().some((p) => p.includes("better-sqlite3")), "rllm/backend loaded better-sqlite3");

const caps = { lossKinds: ["cross_entropy"], kl: false, entropyBonus: false, tisCap: false, aggregations: ["token-mean"] };
backend.checkLossSupported("mine", caps, backend.LossSpecSchema.parse({ kind: "cross_entropy" }));
assert.throws(
  () => backend.checkLossSupported("mine", caps, backend.LossSpecSchema.parse({ kind: "ppo" })),
  (e) => e instanceof backend.UnsupportedOptionError && e.message.includes('loss.kind "ppo"'),
);

const algorithms = await import("rllm/algorithms");
assert.deepEqual(algorithms.rloo([[1, 0, 0], [1, 1]]), [[1, -0.5, -0.5], [0, 0]]);

const gateway = await import("rllm/gateway");
const gw = await gateway.startGateway({ config: { host: "127.0.0.1", port: 0 } });
try {
  const res = await fetch(gw.url + "/health");
  assert.equal(res.status, 200);
} finally {
  await gw.close();
}

const rllm = await import("rllm");
assert(process.moduleLoadList.includes("NativeModule worker_threads"), "the root should load the local backend");
assert(cjs().some((p) => p.includes("better-sqlite3")), "the root should load the store");
assert(rllm.isRollout(rllm.rollout(async () => {})));
assert.equal(typeof rllm.AgentTrainer, "function");
assert.equal(typeof rllm.LocalBackend.create, "function");
assert.equal(typeof rllm.runSft, "function");
// The root re-exports the entry points' bindings, not copies.
assert.equal(rllm.checkLossSupported, backend.checkLossSupported);
assert.equal(rllm.rloo, algorithms.rloo);
assert.equal(rllm.startGateway, gateway.startGateway);
const manifest = new URL("./node_modules/rllm/package.json", import.meta.url);
assert.equal(rllm.VERSION, JSON.parse(readFileSync(manifest, "utf8")).version);
console.log("ok");
`;
  writeFileSync(join(app, "check.mjs"), script);
  assert.equal(run(["check.mjs"], app).trim(), "ok");
});

test("TypeScript resolves each entry point's types by package name", () => {
  writeFileSync(
    join(app, "check.ts"),
    `import { AgentTrainer, type AgentTrainerOptions, evaluator, rollout, type Task } from "rllm";
import { type AdvantageEstimator, grpo } from "rllm/algorithms";
import { checkLossSupported, type LossSpec, type TrainingBackend } from "rllm/backend";
import { type GatewayOptions, startGateway, Store } from "rllm/gateway";

export const estimator: AdvantageEstimator = grpo;
export const agent = rollout(async (task: Task) => String(task.data.question));
export const score = evaluator(() => 1);
export type Backend = TrainingBackend;
export type Options = AgentTrainerOptions;
export const parts = [AgentTrainer, checkLossSupported, startGateway, Store] as const;
export const loss: LossSpec["kind"] = "ppo";
export const options: GatewayOptions = { config: { port: 0 } };
`,
  );
  run(
    [
      tsc,
      "--noEmit",
      "--strict",
      "--skipLibCheck",
      "--module",
      "nodenext",
      "--moduleResolution",
      "nodenext",
      "--target",
      "es2023",
      "--types",
      "node",
      "--typeRoots",
      join(root, "node_modules", "@types"),
      "check.ts",
    ],
    app,
  );
});
