/**
 * `rllm sandbox run` (cli/sandbox.ts) as a user runs it: the real CLI in a child process, a real
 * bwrap sandbox, one JSON object on stdout; bad flags are errors that say what to fix.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

function rllm(args: string[], input?: string) {
  const r = spawnSync(
    process.execPath,
    ["--import", "tsx", "src/cli/index.ts", "sandbox", "run", ...args],
    {
      cwd: ROOT,
      input,
      encoding: "utf8",
      env: { ...process.env, RLLM_LOG_LEVEL: "warn" },
    },
  );
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("rllm sandbox run", () => {
  it("prints the command's result as one JSON object", () => {
    const r = rllm([
      "--timeout",
      "5",
      "--",
      "python3",
      "-c",
      "import sys; print(6*7); sys.exit(3)",
    ]);
    assert.equal(r.status, 0, r.stderr);
    const lines = r.stdout.trim().split("\n");
    assert.equal(lines.length, 1);
    const out = JSON.parse(lines[0]!);
    assert.deepEqual(Object.keys(out).sort(), [
      "cpuSeconds",
      "exitCode",
      "limit",
      "signal",
      "stderr",
      "stderrTruncated",
      "stdout",
      "stdoutTruncated",
      "timedOut",
      "wallSeconds",
    ]);
    assert.equal(out.exitCode, 3);
    assert.equal(out.stdout, "42\n");
  });

  it("--memory, --timeout and --max-output are the limits that stop it", () => {
    const mem = JSON.parse(
      rllm(["--memory", "64", "--", "python3", "-c", "b = bytearray(300 * 1024**2)"]).stdout,
    );
    assert.equal(mem.limit, "memory");
    const slow = JSON.parse(rllm(["--timeout", "0.5", "--", "sleep", "20"]).stdout);
    assert.equal(slow.timedOut, true);
    const loud = JSON.parse(rllm(["--max-output", "100", "--", "yes"]).stdout);
    assert.equal(loud.limit, "output");
    assert.equal(loud.stdout.length, 100);
  });

  it("--workdir copies a directory in (the host's copy unchanged); --stdin feeds the command", () => {
    const dir = mkdtempSync(join(tmpdir(), "rllm-workdir-"));
    try {
      mkdirSync(join(dir, "sub"));
      writeFileSync(
        join(dir, "sub", "prog.py"),
        "import sys\nprint(sys.stdin.read().upper())\nopen('sub/prog.py', 'w').write('changed')\n",
      );
      writeFileSync(join(dir, "in.txt"), "from a file");
      chmodSync(dir, 0o755);
      const r = JSON.parse(
        rllm(["--workdir", dir, "--stdin", join(dir, "in.txt"), "--", "python3", "sub/prog.py"])
          .stdout,
      );
      assert.equal(r.stdout, "FROM A FILE\n");
      assert.match(readFileSync(join(dir, "sub", "prog.py"), "utf8"), /^import sys/);
      const piped = JSON.parse(rllm(["--stdin", "-", "--", "cat"], "piped in").stdout);
      assert.equal(piped.stdout, "piped in");
    } finally {
      rmSync(dir, { recursive: true });
    }
  });

  it("--network on reaches out of the sandbox's own loopback; off does not", () => {
    const probe = [
      "--",
      "python3",
      "-c",
      "import socket\ntry:\n    socket.create_connection(('1.1.1.1', 9), timeout=0.5)\nexcept OSError as e:\n    print(e.errno)",
    ];
    assert.equal(JSON.parse(rllm(["--network", "off", ...probe]).stdout).stdout, "101\n"); // ENETUNREACH
    assert.notEqual(JSON.parse(rllm(["--network", "on", ...probe]).stdout).stdout, "101\n");
  });

  it("bad flags and a missing command are errors that say what to fix", () => {
    const cases: [string[], RegExp][] = [
      [["--memory", "-1", "--", "true"], /--memory -1: must be a positive number of MiB/],
      [["--timeout", "0", "--", "true"], /--timeout 0: must be a positive number of seconds/],
      [["--network", "maybe", "--", "true"], /--network.*maybe.*choices|Allowed choices/i],
      [["--backend", "nope", "--", "true"], /nope/],
      [["--workdir", "/no/such/dir", "--", "true"], /--workdir \/no\/such\/dir: no such directory/],
      [[], /missing required argument 'command'/],
    ];
    for (const [args, message] of cases) {
      const r = rllm(args);
      assert.notEqual(r.status, 0, args.join(" "));
      assert.match(r.stderr, message, args.join(" "));
    }
  });
});
