/**
 * Where a harness's CLI lives, and how it gets there.
 *
 *   rllm harness install claude-code   npm install --prefix $RLLM_HOME/harnesses/claude-code
 *                                      --no-audit --no-fund --save-exact <package>@<version>
 *   locateHarness("claude-code")       → { installDir, bin, version } or a HarnessNotInstalled
 *                                        error naming the install command
 *
 * The install dir is, in order: env RLLM_HARNESS_<NAME> (the name upper-cased, `-` → `_`; e.g.
 * RLLM_HARNESS_CLAUDE_CODE=/opt/claude), the `installDir` a caller passes, else
 * $RLLM_HOME/harnesses/<name>. Either way it is an npm prefix: `<dir>/node_modules/<package>` holds
 * the package and `<dir>/<definition.bin>` the executable. In an explicit dir (env or option) the
 * installed version may differ from the pinned one (the user's choice; it is reported, never
 * silently replaced); in the default dir, which only `rllm harness install` fills, another version
 * is one installed before the pin moved on: an error saying to install again.
 * Installing again over the pinned version is a no-op ("already installed").
 *
 * Finished means npm finished: it writes `node_modules/.package-lock.json` (its hidden lockfile)
 * last, after the packages' install scripts (Claude Code's copies a 370 MB native binary over a
 * placeholder). An install npm did not finish (killed: no rollback) leaves the package.json and
 * the bin link but no hidden lockfile listing the package at that version; in the default dir
 * that is not installed, and `rllm harness install` runs npm again.
 *
 * The sandbox runs the CLI as an unprivileged user that sees the dir at the same path, so every
 * dir above it must be searchable by others (o+x): not so under root's HOME (/root is 0700 on
 * Debian), where the default ~/.rllm lies when RLLM_HOME is unset. unreachableReason() says which
 * dir blocks it; the runner refuses such a dir at startup.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { rllmHome } from "../../home.js";
import { harnessDefinition } from "./registry.js";
import type { HarnessDefinition } from "./types.js";

export interface LocatedHarness {
  definition: HarnessDefinition;
  /** The npm prefix the package is installed under (absolute). */
  installDir: string;
  /** The executable, absolute. */
  bin: string;
  /** The installed package's version. */
  version: string;
  /** Where the dir came from: the env knob, the caller, or the default under RLLM_HOME. */
  source: "env" | "option" | "default";
}

export class HarnessNotInstalledError extends Error {
  override name = "HarnessNotInstalledError";
}

/** The env knob that points at an install dir of `name`. */
export function harnessEnvKey(name: string): string {
  return `RLLM_HARNESS_${name.toUpperCase().replaceAll("-", "_")}`;
}

/** The default install dir of `name`: $RLLM_HOME/harnesses/<name>. */
export function defaultHarnessDir(name: string, env: NodeJS.ProcessEnv = process.env): string {
  return join(rllmHome(env), "harnesses", name);
}

/** The install dir `name` is looked for in (see the header for the order). */
export function harnessDir(
  name: string,
  options: { installDir?: string; env?: NodeJS.ProcessEnv } = {},
): { dir: string; source: LocatedHarness["source"] } {
  const env = options.env ?? process.env;
  const fromEnv = env[harnessEnvKey(name)];
  if (fromEnv) return { dir: resolve(fromEnv), source: "env" };
  if (options.installDir) return { dir: resolve(options.installDir), source: "option" };
  return { dir: defaultHarnessDir(name, env), source: "default" };
}

/** The version of `definition`'s package under `dir`, or undefined when it is not there. */
export function installedVersion(definition: HarnessDefinition, dir: string): string | undefined {
  const file = join(dir, "node_modules", definition.package, "package.json");
  try {
    const version = (JSON.parse(readFileSync(file, "utf8")) as { version?: unknown }).version;
    return typeof version === "string" ? version : undefined;
  } catch {
    return undefined;
  }
}

/** The installed CLI of `name`; not installed (package or executable missing) is an error saying how to install it. */
export function locateHarness(
  name: string,
  options: { installDir?: string; env?: NodeJS.ProcessEnv } = {},
): LocatedHarness {
  const definition = harnessDefinition(name);
  const { dir, source } = harnessDir(name, options);
  const version = installedVersion(definition, dir);
  const bin = join(dir, definition.bin);
  if (version === undefined || !existsSync(bin)) {
    const where =
      source === "env"
        ? `${harnessEnvKey(name)}=${dir}`
        : source === "option"
          ? `installDir ${dir}`
          : `${dir} (RLLM_HOME/harnesses/${name})`;
    const missing =
      version === undefined ? `${definition.package} is not installed` : `${bin} is missing`;
    const pkg = definition.package;
    const todo =
      source === "env"
        ? `point ${harnessEnvKey(name)} at an npm prefix holding ${pkg} (a dir with node_modules/${pkg}), or unset it and run \`rllm harness install ${name}\``
        : source === "option"
          ? `pass an installDir holding ${pkg} (an npm prefix), or drop it and run \`rllm harness install ${name}\``
          : `run \`rllm harness install ${name}\``;
    throw new HarnessNotInstalledError(`harness ${name}: ${missing} in ${where}; ${todo}`);
  }
  if (source === "default" && version !== definition.version) {
    throw new HarnessNotInstalledError(
      `harness ${name}: ${definition.package} ${version} is installed in ${dir} (RLLM_HOME/harnesses/${name}), not the pinned ${definition.version}; run \`rllm harness install ${name}\``,
    );
  }
  if (source === "default" && !npmFinished(definition, dir, version)) {
    throw new HarnessNotInstalledError(
      `harness ${name}: the install of ${definition.package} in ${dir} (RLLM_HOME/harnesses/${name}) did not finish (npm's node_modules/.package-lock.json does not list it at ${version}); run \`rllm harness install ${name}\``,
    );
  }
  return { definition, installDir: dir, bin, version, source };
}

/** Whether npm finished installing `definition`'s package at `version` under `dir` (see the header). */
function npmFinished(definition: HarnessDefinition, dir: string, version: string): boolean {
  try {
    const lock = JSON.parse(readFileSync(join(dir, "node_modules", ".package-lock.json"), "utf8"));
    return lock?.packages?.[`node_modules/${definition.package}`]?.version === version;
  } catch {
    return false;
  }
}

/**
 * Why the sandbox's user cannot reach `dir` (a dir above it not searchable by others), or
 * undefined; `remedy`: the other way out than chmod.
 */
export function unreachableReason(
  dir: string,
  remedy = "install under another RLLM_HOME (e.g. RLLM_HOME=/opt/rllm rllm harness install …)",
): string | undefined {
  for (let d = dir; ; d = dirname(d)) {
    const mode = statSync(d).mode;
    if ((mode & 0o001) === 0) {
      return `${d} is mode ${(mode & 0o777).toString(8)}, not searchable by others (the sandbox's user); chmod o+x ${d}, or ${remedy}`;
    }
    if (d === dirname(d)) return undefined;
  }
}

export interface InstallResult {
  name: string;
  installDir: string;
  version: string;
  /** false: the pinned version was there already. */
  installed: boolean;
}

/**
 * Installs `name`'s pinned package into its install dir (npm on PATH; its progress goes to
 * `log`). A failed npm run is an error with npm's output tail.
 */
export async function installHarness(
  name: string,
  options: { env?: NodeJS.ProcessEnv; log?: (line: string) => void; npm?: string } = {},
): Promise<InstallResult> {
  const definition = harnessDefinition(name);
  const { dir, source } = harnessDir(name, { env: options.env });
  if (source === "env" && existsSync(dir) && !statSync(dir).isDirectory()) {
    throw new Error(
      `harness ${name}: ${harnessEnvKey(name)}=${dir} is not a directory; point it at an npm prefix (a dir, made if missing) or unset it to install into RLLM_HOME/harnesses/${name}`,
    );
  }
  const log = options.log ?? (() => {});
  const spec = `${definition.package}@${definition.version}`;
  if (
    installedVersion(definition, dir) === definition.version &&
    existsSync(join(dir, definition.bin)) &&
    npmFinished(definition, dir, definition.version)
  ) {
    log(`${name}: ${spec} already installed in ${dir}`);
    return { name, installDir: dir, version: definition.version, installed: false };
  }
  mkdirSync(dir, { recursive: true });
  log(`${name}: npm install ${spec} into ${dir}`);
  const args = ["install", "--prefix", dir, "--no-audit", "--no-fund", "--save-exact", spec];
  await runNpm(options.npm ?? "npm", args, log);
  const version = installedVersion(definition, dir);
  if (version !== definition.version || !existsSync(join(dir, definition.bin))) {
    throw new Error(
      `harness ${name}: npm install ${spec} finished but ${join(dir, definition.bin)} (version ${version ?? "none"}) is not there`,
    );
  }
  log(`${name}: installed ${spec}`);
  const blocked = unreachableReason(dir);
  if (blocked) log(`${name}: warning: a sandbox cannot run it from ${dir}: ${blocked}`);
  return { name, installDir: dir, version, installed: true };
}

function runNpm(npm: string, args: string[], log: (line: string) => void): Promise<void> {
  return new Promise((done, fail) => {
    const child = spawn(npm, args, { stdio: ["ignore", "pipe", "pipe"] });
    let tail = "";
    const onData = (chunk: Buffer) => {
      const text = chunk.toString("utf8");
      tail = (tail + text).slice(-4000);
      for (const line of text.split("\n")) if (line.trim()) log(`  ${line.trimEnd()}`);
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.on("error", (err) => fail(new Error(`could not run ${npm}: ${err.message}`)));
    child.on("close", (code, signal) => {
      if (code === 0) done();
      else
        fail(new Error(`${npm} ${args.join(" ")} failed (${signal ?? `exit ${code}`}):\n${tail}`));
    });
  });
}
