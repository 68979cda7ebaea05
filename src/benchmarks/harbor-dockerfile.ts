/**
 * A Harbor task's environment/Dockerfile read (not built) into what the bwrap sandbox starts
 * with: the last WORKDIR, the files COPY/ADD put under it, and ENV. What is read, ignored and
 * refused is listed in harbor.ts's header; every refusal names the file, the line and what to do.
 * Docker's rules kept: a directory source copies its contents; a destination ending in "/", one
 * that is an existing directory (a WORKDIR or a directory copied before) or a copy of several
 * sources is a directory; else a single file source is written at the destination path.
 */
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { basename, posix, relative, resolve, sep } from "node:path";
import type { HarborFile } from "../types/index.js";

/** What the Dockerfile makes of the sandbox. */
export interface HarborImage {
  workdir: string;
  /** Relative to `workdir`. */
  files: HarborFile[];
  env: Record<string, string>;
}

/** Images whose tools a Debian-like host stands in for (matched on the image's last path part). */
const STAND_INS = /^(ubuntu|debian|python|buildpack-deps)([-:@].*)?$/;
const IGNORED = new Set([
  "LABEL",
  "EXPOSE",
  "CMD",
  "ENTRYPOINT",
  "USER",
  "MAINTAINER",
  "STOPSIGNAL",
  "HEALTHCHECK",
  "SHELL",
  "VOLUME",
  "ONBUILD",
]);
const ARCHIVE = /\.(tar|tar\.gz|tgz|tar\.bz2|tbz2?|tar\.xz|txz|tar\.zst)$/i;

/** A task directory that cannot be read as a Harbor task; the message names the path. */
export class HarborTaskError extends Error {
  override name = "HarborTaskError";
}

interface Line {
  n: number;
  instruction: string;
  args: string;
}

/** Reads `path`, with `context` (environment/) as the build context. */
export function readDockerfile(path: string, context: string): HarborImage {
  const fail = (line: number, why: string): never => {
    throw new HarborTaskError(`${path}:${line}: ${why}`);
  };
  let from = false;
  let workdir: string | undefined;
  const env: Record<string, string> = {};
  const dirs = new Set<string>(["/"]);
  const files = new Map<string, { bytes: Buffer; mode: number; line: number }>();
  for (const { n, instruction, args } of logicalLines(readFileSync(path, "utf8"))) {
    if (IGNORED.has(instruction)) continue;
    if (instruction !== "FROM" && !from) fail(n, `${instruction} before FROM`);
    if (instruction === "FROM") {
      if (from)
        fail(n, "a second FROM (a multi-stage build) needs a container runtime; use one stage");
      from = true;
      const image = args.split(/\s+/).find((t) => !t.startsWith("--")) ?? "";
      const name = image.split("/").pop() ?? "";
      if (!STAND_INS.test(name))
        fail(
          n,
          `FROM ${image}: rllm runs Harbor tasks in the bwrap sandbox with the host's tools, which stand in for ubuntu, debian, python and buildpack-deps images only; this task needs a container runtime`,
        );
    } else if (instruction === "WORKDIR") {
      if (args.includes("$")) fail(n, "WORKDIR with $ substitution is not read; give the path");
      workdir = posix.resolve(workdir ?? "/", unquote(args.trim()));
      for (let d = workdir; d !== "/"; d = posix.dirname(d)) dirs.add(d);
    } else if (instruction === "COPY" || instruction === "ADD") {
      copy(instruction, args, n, { context, workdir: workdir ?? "/", dirs, files, fail });
    } else if (instruction === "ENV") {
      if (args.includes("$")) fail(n, "ENV with $ substitution is not read; give the values");
      Object.assign(
        env,
        parseEnv(args, (why) => fail(n, why)),
      );
    } else if (instruction === "RUN") {
      fail(
        n,
        `RUN ${args.slice(0, 60)}: this task needs a container runtime to build its environment, and rllm runs Harbor tasks in the bwrap sandbox with the host's tools; remove the RUN line if the host already has what it installs`,
      );
    } else if (instruction === "ARG") {
      fail(n, "ARG (build arguments) is not read; write the values in place");
    } else fail(n, `unknown instruction ${instruction}`);
  }
  if (!from) throw new HarborTaskError(`${path}: no FROM line`);
  if (workdir === undefined || workdir === "/")
    throw new HarborTaskError(
      `${path}: no WORKDIR: rllm needs the directory the agent works in (Harbor's convention: WORKDIR /app)`,
    );
  const under = `${workdir}/`;
  const out: HarborFile[] = [];
  for (const [abs, f] of [...files].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (!abs.startsWith(under))
      fail(
        f.line,
        `COPY/ADD puts ${abs} outside the WORKDIR ${workdir}: only the workdir is writable in rllm's sandbox; copy into it`,
      );
    out.push({ path: abs.slice(under.length), base64: f.bytes.toString("base64"), mode: f.mode });
  }
  return { workdir, files: out, env };
}

/**
 * Instructions with continuation lines joined and comments dropped, numbered by first line. As
 * Docker's parser does: a continuation line is appended as it is (`A=x\` + `y` is `A=xy`), and
 * empty and comment lines inside an instruction are skipped.
 */
function logicalLines(text: string): Line[] {
  const out: Line[] = [];
  let current: { n: number; text: string } | undefined;
  text.split(/\r?\n/).forEach((raw, i) => {
    if (/^\s*#/.test(raw) || raw.trim() === "") return;
    const continued = /\\\s*$/.test(raw);
    const part = continued ? raw.replace(/\\\s*$/, "") : raw;
    current = current ? { n: current.n, text: current.text + part } : { n: i + 1, text: part };
    if (continued) return;
    const m = /^\s*(\S+)\s*(.*)$/s.exec(current.text)!;
    out.push({ n: current.n, instruction: m[1]!.toUpperCase(), args: m[2]!.trim() });
    current = undefined;
  });
  if (current) {
    const m = /^\s*(\S+)\s*(.*)$/s.exec(current.text)!;
    out.push({ n: current.n, instruction: m[1]!.toUpperCase(), args: m[2]!.trim() });
  }
  return out;
}

interface CopyState {
  context: string;
  workdir: string;
  dirs: Set<string>;
  files: Map<string, { bytes: Buffer; mode: number; line: number }>;
  fail: (line: number, why: string) => never;
}

function copy(instruction: string, args: string, n: number, s: CopyState): void {
  const fail = (why: string) => s.fail(n, `${instruction}: ${why}`);
  let rest = args;
  let chmod: number | undefined;
  for (let flag = /^--(\S+)\s*/.exec(rest); flag; flag = /^--(\S+)\s*/.exec(rest)) {
    const [name, value] = flag[1]!.split("=", 2) as [string, string | undefined];
    if (name === "chmod") {
      if (!value || !/^[0-7]{3,4}$/.test(value))
        fail(`--chmod=${value} is not octal permission bits`);
      chmod = Number.parseInt(value!, 8);
    } else if (name !== "chown" && name !== "link")
      fail(`--${name} is not read (only --chmod, --chown and --link are)`);
    rest = rest.slice(flag[0].length);
  }
  if (rest.includes("$")) fail("$ substitution is not read; give the paths");
  const parts = rest.startsWith("[") ? jsonArgs(rest, fail) : rest.split(/\s+/).filter(Boolean);
  if (parts.length < 2) fail("needs a source and a destination");
  const dest = parts.pop()!;
  const destAbs = posix.resolve(s.workdir, dest);
  const intoDir = dest.endsWith("/") || dest === "." || parts.length > 1 || s.dirs.has(destAbs);
  for (const src of parts) {
    if (/[*?[]/.test(src)) fail(`wildcards (${src}) are not read; name the files`);
    if (instruction === "ADD" && (/^[a-z]+:\/\//i.test(src) || src.startsWith("git@")))
      fail(
        `ADD of a URL (${src}) needs a network at build time; put the file in environment/ and COPY it`,
      );
    if (instruction === "ADD" && ARCHIVE.test(src))
      fail(
        `ADD of an archive (${src}) unpacks it at build time; unpack it into environment/ and COPY the directory`,
      );
    const host = resolve(s.context, src);
    if (host !== s.context && !host.startsWith(s.context + sep))
      fail(`${src} is outside the build context environment/`);
    if (!existsSync(host)) fail(`${src} does not exist in environment/`);
    // As Docker sends the context, not the host: a symlink may not lead out of it.
    const real = realpathSync(host);
    const root = realpathSync(s.context);
    if (real !== root && !real.startsWith(root + sep))
      fail(`${src} leads out of the build context environment/ (to ${real}); copy the file in`);
    if (statSync(host).isDirectory()) {
      for (const f of walk(host)) put(s, posix.join(destAbs, f.rel), f.full, chmod, n);
      for (let d = destAbs; d !== "/"; d = posix.dirname(d)) s.dirs.add(d);
    } else {
      put(s, intoDir ? posix.join(destAbs, basename(host)) : destAbs, host, chmod, n);
    }
  }
}

/** The exec form `["a", "b", "/dest/"]`. */
function jsonArgs(text: string, fail: (why: string) => never): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!Array.isArray(parsed) || parsed.some((p) => typeof p !== "string"))
    fail(`${text} is not a JSON array of strings`);
  return parsed as string[];
}

function put(s: CopyState, abs: string, host: string, chmod: number | undefined, line: number) {
  const mode = chmod ?? statSync(host).mode & 0o7777;
  s.files.set(abs, { bytes: readFileSync(host), mode, line });
  for (let d = posix.dirname(abs); d !== "/"; d = posix.dirname(d)) s.dirs.add(d);
}

/** Regular files under `dir`, recursively, as paths relative to it ("/"-separated), sorted. */
export function walk(dir: string): { rel: string; full: string }[] {
  const out: { rel: string; full: string }[] = [];
  const visit = (at: string) => {
    for (const d of readdirSync(at, { withFileTypes: true }).sort((a, b) =>
      a.name < b.name ? -1 : 1,
    )) {
      const full = resolve(at, d.name);
      if (d.isDirectory()) visit(full);
      else if (d.isFile()) out.push({ rel: relative(dir, full).split(sep).join("/"), full });
      else throw new HarborTaskError(`${full} is not a regular file or directory; remove it`);
    }
  };
  visit(dir);
  return out;
}

/** ENV's arguments: KEY=VALUE pairs (quotes and backslashes as a shell reads them) or `KEY VALUE`. */
function parseEnv(args: string, fail: (why: string) => never): Record<string, string> {
  const tokens: string[] = [];
  let token = "";
  let inToken = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < args.length; i++) {
    const c = args[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === "\\" && quote === '"' && i + 1 < args.length) token += args[++i];
      else token += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      inToken = true;
    } else if (c === "\\" && i + 1 < args.length) {
      token += args[++i];
      inToken = true;
    } else if (/\s/.test(c)) {
      if (inToken) tokens.push(token);
      token = "";
      inToken = false;
    } else {
      token += c;
      inToken = true;
    }
  }
  if (quote) fail(`ENV ${args}: an unclosed ${quote}`);
  if (inToken) tokens.push(token);
  if (tokens.length === 0) fail("ENV needs KEY=VALUE");
  if (!tokens[0]!.includes("=")) {
    if (tokens.length < 2) fail(`ENV ${tokens[0]} needs a value`);
    return { [tokens[0]!]: args.trim().slice(args.trim().search(/\s/)).trim() };
  }
  const env: Record<string, string> = {};
  for (const t of tokens) {
    const eq = t.indexOf("=");
    if (eq <= 0) fail(`ENV ${t}: expected KEY=VALUE`);
    env[t.slice(0, eq)] = t.slice(eq + 1);
  }
  return env;
}

function unquote(text: string): string {
  const m = /^"(.*)"$/.exec(text) ?? /^'(.*)'$/.exec(text);
  return m ? m[1]! : text;
}
