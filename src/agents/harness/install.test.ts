/**
 * Installing and finding harnesses without the network: npm is a stand-in script that lays out
 * what `npm install --prefix DIR PKG@VER` leaves (node_modules/PKG/package.json and the bin link)
 * and records its argv; and the runner's endings on stand-in CLIs (a prefix dir given by
 * RLLM_HARNESS_<NAME>, its executable a shell script) in a real bwrap sandbox: a non-zero exit, a
 * timeout, a CLI that cannot start, each the episode's error with its output tail.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, describe, test } from "node:test";
import { envLayer, loadConfig } from "../../config/index.js";
import { InProcessGateway, runRollouts } from "../../engine/index.js";
import { closeSharedSandboxes } from "../../sandbox/shared.js";
import { startFakeUpstream } from "../../testing/fake-upstream.js";
import { harnessAgent } from "./agent.js";
import { claudeCode } from "./claude-code.js";
import {
  HarnessNotInstalledError,
  harnessEnvKey,
  installHarness,
  locateHarness,
} from "./install.js";

const scratch = mkdtempSync(join(tmpdir(), "rllm-harness-"));
chmodSync(scratch, 0o755); // the sandbox's user reaches the stand-in CLIs
after(() => rmSync(scratch, { recursive: true, force: true }));

/** A prefix laid out as npm leaves it for claude-code, its executable `script`. */
function fakePrefix(name: string, version: string, script: string): string {
  const dir = join(scratch, name);
  mkdirSync(join(dir, "node_modules", claudeCode.package), { recursive: true });
  writeFileSync(
    join(dir, "node_modules", claudeCode.package, "package.json"),
    JSON.stringify({ name: claudeCode.package, version }),
  );
  mkdirSync(dirname(join(dir, claudeCode.bin)), { recursive: true });
  writeFileSync(join(dir, claudeCode.bin), script);
  chmodSync(join(dir, claudeCode.bin), 0o755);
  return dir;
}

/** A stand-in npm: records its argv in DIR/argv.json and lays out the pinned package (or fails). */
function fakeNpm(fail = false): string {
  const path = join(scratch, fail ? "npm-fail" : "npm");
  writeFileSync(
    path,
    `#!/bin/sh
${fail ? 'echo "npm error 404 Not Found" >&2; exit 1' : ""}
prefix="$3"
printf '%s\\n' "$@" > "$prefix/argv.txt"
mkdir -p "$prefix/node_modules/${claudeCode.package}" "$prefix/node_modules/.bin"
echo '{"version":"${claudeCode.version}"}' > "$prefix/node_modules/${claudeCode.package}/package.json"
echo '{"lockfileVersion":3,"packages":{"node_modules/${claudeCode.package}":{"version":"${claudeCode.version}"}}}' > "$prefix/node_modules/.package-lock.json"
printf '#!/bin/sh\\n' > "$prefix/${claudeCode.bin}"
echo "added 3 packages"
`,
  );
  chmodSync(path, 0o755);
  return path;
}

describe("install and locate", () => {
  test("not installed: an error naming the install command", () => {
    const env = { RLLM_HOME: join(scratch, "empty-home") };
    assert.throws(
      () => locateHarness("claude-code", { env }),
      (err: Error) =>
        err instanceof HarnessNotInstalledError &&
        /@anthropic-ai\/claude-code is not installed in .*empty-home\/harnesses\/claude-code/.test(
          err.message,
        ) &&
        err.message.includes("run `rllm harness install claude-code`"),
    );
    assert.throws(
      () => locateHarness("nope", { env }),
      /unknown harness "nope"; the harnesses are claude-code, codex, gemini-cli, opencode, qwen-code/,
    );
  });

  test("install runs npm into RLLM_HOME/harnesses/NAME with the pinned version, once", async () => {
    const env = { RLLM_HOME: join(scratch, "home") };
    const lines: string[] = [];
    const npm = fakeNpm();
    const first = await installHarness("claude-code", { env, npm, log: (l) => lines.push(l) });
    const dir = join(scratch, "home", "harnesses", "claude-code");
    assert.deepEqual(first, {
      name: "claude-code",
      installDir: dir,
      version: "2.1.328",
      installed: true,
    });
    assert.deepEqual(readFileSync(join(dir, "argv.txt"), "utf8").trim().split("\n"), [
      "install",
      "--prefix",
      dir,
      "--no-audit",
      "--no-fund",
      "--save-exact",
      "@anthropic-ai/claude-code@2.1.328",
    ]);
    assert.ok(lines.includes("  added 3 packages"), "npm's output is shown");
    const again = await installHarness("claude-code", { env, npm, log: (l) => lines.push(l) });
    assert.equal(again.installed, false);
    assert.match(lines.at(-1)!, /already installed/);
    const found = locateHarness("claude-code", { env });
    assert.equal(found.version, "2.1.328");
    assert.equal(found.source, "default");
    assert.equal(found.bin, join(dir, "node_modules/.bin/claude"));
  });

  test("a failed npm is an error with its output", async () => {
    const env = { RLLM_HOME: join(scratch, "home-fail") };
    await assert.rejects(
      installHarness("claude-code", { env, npm: fakeNpm(true) }),
      /failed \(exit 1\):\nnpm error 404 Not Found/,
    );
  });

  test("the default dir holding another version than the pinned one (the pin moved on): an error naming the install command", async () => {
    const env = { RLLM_HOME: join(scratch, "home-old") };
    const dir = join(scratch, "home-old", "harnesses", "claude-code");
    mkdirSync(join(dir, "node_modules", claudeCode.package), { recursive: true });
    writeFileSync(
      join(dir, "node_modules", claudeCode.package, "package.json"),
      JSON.stringify({ version: "2.0.0" }),
    );
    mkdirSync(dirname(join(dir, claudeCode.bin)), { recursive: true });
    writeFileSync(join(dir, claudeCode.bin), "#!/bin/sh\n");
    assert.throws(
      () => locateHarness("claude-code", { env }),
      (err: Error) =>
        err instanceof HarnessNotInstalledError &&
        err.message.includes(
          `@anthropic-ai/claude-code 2.0.0 is installed in ${dir} (RLLM_HOME/harnesses/claude-code), not the pinned 2.1.328; run \`rllm harness install claude-code\``,
        ),
    );
    await installHarness("claude-code", { env, npm: fakeNpm() });
    assert.equal(locateHarness("claude-code", { env }).version, "2.1.328");
  });

  test("a half-finished install (npm killed in its build step: package and bin there, no hidden lockfile) is not installed; install runs npm again", async () => {
    const env = { RLLM_HOME: join(scratch, "home-half") };
    const dir = join(scratch, "home-half", "harnesses", "claude-code");
    mkdirSync(join(dir, "node_modules", claudeCode.package), { recursive: true });
    writeFileSync(
      join(dir, "node_modules", claudeCode.package, "package.json"),
      JSON.stringify({ version: claudeCode.version }),
    );
    mkdirSync(dirname(join(dir, claudeCode.bin)), { recursive: true });
    writeFileSync(join(dir, claudeCode.bin), "#!/bin/sh\necho placeholder\n");
    assert.throws(
      () => locateHarness("claude-code", { env }),
      (err: Error) =>
        err instanceof HarnessNotInstalledError &&
        err.message ===
          `harness claude-code: the install of @anthropic-ai/claude-code in ${dir} (RLLM_HOME/harnesses/claude-code) did not finish (npm's node_modules/.package-lock.json does not list it at 2.1.328); run \`rllm harness install claude-code\``,
    );
    const r = await installHarness("claude-code", { env, npm: fakeNpm() });
    assert.equal(r.installed, true, "npm ran again");
    assert.equal(locateHarness("claude-code", { env }).version, "2.1.328");
  });

  test("RLLM_HARNESS_<NAME> pointing at junk (the executable, not a prefix): errors saying what to do that works", async () => {
    const file = join(scratch, "claude-binary");
    writeFileSync(file, "#!/bin/sh\n");
    const env = { RLLM_HOME: join(scratch, "empty-home"), RLLM_HARNESS_CLAUDE_CODE: file };
    assert.throws(
      () => locateHarness("claude-code", { env }),
      (err: Error) =>
        err.message ===
        `harness claude-code: @anthropic-ai/claude-code is not installed in RLLM_HARNESS_CLAUDE_CODE=${file}; point RLLM_HARNESS_CLAUDE_CODE at an npm prefix holding @anthropic-ai/claude-code (a dir with node_modules/@anthropic-ai/claude-code), or unset it and run \`rllm harness install claude-code\``,
    );
    await assert.rejects(
      installHarness("claude-code", { env, npm: fakeNpm() }),
      (err: Error) =>
        err.message ===
        `harness claude-code: RLLM_HARNESS_CLAUDE_CODE=${file} is not a directory; point it at an npm prefix (a dir, made if missing) or unset it to install into RLLM_HOME/harnesses/claude-code`,
    );
  });

  test("node where the sandbox's user cannot reach it (nvm under root's 0700 HOME): an error at startup", () => {
    const root = join(scratch, "root-home");
    mkdirSync(join(root, "bin"), { recursive: true });
    linkSync(process.execPath, join(root, "bin", "node")); // node as run from a private dir
    chmodSync(root, 0o700);
    const dir = fakePrefix("reachable", claudeCode.version, "#!/bin/sh\n");
    const out = execFileSync(
      join(root, "bin", "node"),
      [
        "--import",
        "tsx",
        "-e",
        `import("./src/agents/harness/agent.ts").then((m) => { try { m.harnessAgent("claude-code"); console.log("created"); } catch (e) { console.log(e.message); } });`,
      ],
      { env: { ...process.env, RLLM_HARNESS_CLAUDE_CODE: dir }, encoding: "utf8" },
    );
    assert.equal(
      out.trim(),
      `harness claude-code: the sandbox cannot run node (${join(root, "bin", "node")}), which carries the CLI's gateway calls: ${root} is mode 700, not searchable by others (the sandbox's user); chmod o+x ${root}, or run rllm with a node installed elsewhere (e.g. under /usr)`,
    );
  });

  test("RLLM_HARNESS_<NAME> points at a prefix elsewhere, any version; the config loader leaves it alone", () => {
    const dir = fakePrefix("elsewhere", "2.0.0", "#!/bin/sh\n");
    const env = { RLLM_HOME: join(scratch, "empty-home"), [harnessEnvKey("claude-code")]: dir };
    assert.equal(harnessEnvKey("claude-code"), "RLLM_HARNESS_CLAUDE_CODE");
    const found = locateHarness("claude-code", { env });
    assert.deepEqual([found.installDir, found.version, found.source], [dir, "2.0.0", "env"]);
    assert.deepEqual(envLayer({ RLLM_HARNESS_CLAUDE_CODE: dir }), {});
    assert.equal(loadConfig({ env: { RLLM_HARNESS_CLAUDE_CODE: dir } }).eval.harness, undefined);
    assert.equal(loadConfig({ env: { RLLM_EVAL_HARNESS: "opencode" } }).eval.harness, "opencode");
  });
});

describe("the runner's endings, on stand-in CLIs in bwrap", async () => {
  const up = await startFakeUpstream({ kind: "vllm" });
  const gw = await InProcessGateway.start({
    upstreams: [{ url: up.url, kind: "vllm" }],
    healthCheckIntervalMs: 0,
    connectRetries: 0,
  });
  after(async () => {
    await gw.close();
    await up.close();
    await closeSharedSandboxes();
  });

  async function episodeWith(script: string, timeoutS = 60, instruction = "do it") {
    const dir = fakePrefix(`cli-${Math.random().toString(36).slice(2)}`, "2.1.328", script);
    process.env.RLLM_HARNESS_CLAUDE_CODE = dir;
    try {
      const r = await runRollouts([{ id: "t", data: { instruction, files: { "in.txt": "x" } } }], {
        gateway: gw,
        rollout: harnessAgent("claude-code", { timeoutS }),
        model: "m",
        infraRetries: 0,
      });
      return r.episodes[0]!;
    } finally {
      delete process.env.RLLM_HARNESS_CLAUDE_CODE;
    }
  }

  test("a clean exit: the CLI ran in the task's files with the config's env and HOME", async () => {
    const ep = await episodeWith(
      '#!/bin/sh\necho "{\\"result\\":\\"$(cat in.txt) $HOME $ANTHROPIC_MODEL $IS_SANDBOX $(pwd) $1\\"}"\n',
    );
    assert.equal(ep.error ?? null, null);
    assert.equal(ep.terminationReason, "env_done");
    assert.equal(ep.info?.answer, "x /tmp/rllm-home m 1 /work -p");
    assert.deepEqual(ep.trajectories[0]!.steps, [], "no model calls, no steps");
  });

  test("the sandbox reaches the gateway through the tunnel, and nothing else of the host", async () => {
    const probe = `#!/bin/sh
exec node -e '
const [gw, up] = process.argv.slice(1);
const probe = (u) => fetch(u).then((r) => "http " + r.status, () => "unreachable");
Promise.all([probe(gw + "/v1/models"), probe(up + "/health")]).then((r) =>
  console.log(JSON.stringify({ result: gw + " " + r.join(" ") })));
' "$ANTHROPIC_BASE_URL" "$2"
`;
    const ep = await episodeWith(probe, 60, up.url);
    assert.equal(ep.info?.error ?? null, null);
    const port = new URL(gw.url).port;
    assert.match(
      ep.info?.answer as string,
      new RegExp(`^http://127\\.0\\.0\\.1:${port}/sessions/\\S+ http \\d{3} unreachable$`),
      "the session's URL answers; the upstream on the host's loopback does not",
    );
  });

  test("through the tunnel only the session's model API answers: no admin route (the gateway has no admin key)", async () => {
    const probe = `#!/bin/sh
exec node -e '
const base = process.env.ANTHROPIC_BASE_URL, origin = new URL(base).origin;
const auth = { authorization: "Bearer " + process.env.ANTHROPIC_AUTH_TOKEN };
const status = (u, init) => fetch(u, init).then((r) => r.status, () => "unreachable");
Promise.all([
  status(origin + "/admin/weight-version", { method: "POST", body: JSON.stringify({ weightVersion: 99 }) }),
  status(origin + "/sessions"),
  status(base + "/traces"),
  status(base, { method: "DELETE" }),
  status(origin + "/health"),
  status(base + "/v1/models", { headers: auth }),
]).then((r) => console.log(JSON.stringify({ result: r.join(" ") })));
'
`;
    const ep = await episodeWith(probe);
    assert.equal(ep.info?.error ?? null, null);
    assert.equal(ep.info?.answer, "404 404 404 404 404 200");
    assert.equal(gw.gateway.weightVersion, 0);
  });

  test("a sandbox opening thousands of tunnel connections holds at most 128 of rllm's descriptors; the session's API answers after", async () => {
    const flood = `#!/bin/sh
exec node -e '
const net = require("node:net");
const port = Number(new URL(process.env.ANTHROPIC_BASE_URL).port);
const held = [];
const open = (n) => n === 0 ? Promise.resolve() : new Promise((done) => {
  const c = net.connect(port, "127.0.0.1", done);
  c.on("error", done).on("close", done);
  held.push(c);
}).then(() => open(n - 1));
open(1500)
  .then(() => new Promise((r) => setTimeout(r, 500)))
  .then(() => { for (const c of held) c.destroy(); return new Promise((r) => setTimeout(r, 200)); })
  .then(() => fetch(process.env.ANTHROPIC_BASE_URL + "/v1/models", { headers: { authorization: "Bearer " + process.env.ANTHROPIC_AUTH_TOKEN } }))
  .then((r) => console.log(JSON.stringify({ result: String(r.status) })), (e) => console.log(JSON.stringify({ result: String(e) })))
  .then(() => process.exit(0));
'
`;
    const fds = () => readdirSync("/proc/self/fd").length;
    const baseline = fds();
    let most = baseline;
    const watch = setInterval(() => {
      most = Math.max(most, fds());
    }, 20);
    const ep = await episodeWith(flood);
    clearInterval(watch);
    assert.equal(ep.info?.error ?? null, null);
    assert.equal(ep.info?.answer, "200");
    assert.ok(most - baseline < 200, `rllm held ${most - baseline} more descriptors`);
  });

  test("a non-zero exit is the episode's error with the stderr tail", async () => {
    const ep = await episodeWith(
      "#!/bin/sh\necho progress\necho 'API error 400: bad request' >&2\nexit 3\n",
    );
    assert.equal(ep.terminationReason, "error");
    assert.match(
      ep.info?.error as string,
      /^harness claude-code exited with code 3; its stderr ends:\nAPI error 400: bad request$/,
    );
    const info = ep.info?.harness as Record<string, unknown>;
    assert.equal(info.exitCode, 3);
    assert.equal(info.stdout, "progress\n");
  });

  test("a timeout says so", async () => {
    const ep = await episodeWith("#!/bin/sh\necho started\nexec sleep 30\n", 1);
    assert.equal(ep.terminationReason, "timeout");
    assert.match(
      ep.info?.error as string,
      /^harness claude-code timed out after 1 s; its stdout ends:\nstarted$/,
    );
  });

  test("a CLI that cannot start says so", async () => {
    const ep = await episodeWith("#!/nonexistent/interpreter\n");
    assert.equal(ep.terminationReason, "error");
    assert.match(
      ep.info?.error as string,
      /^harness claude-code failed to start \(exit 12[67]\); its stderr ends:\nrllm: cannot start .*node_modules\/\.bin\/claude: spawn .* ENOENT$/,
    );
  });
});
