/**
 * openTaskEnvironment in real bwrap sandboxes: every Harbor fixture's oracle gets reward 1 and its
 * untouched environment 0; the verifier's reward files as Harbor reads them, and each way it can
 * fail to give a reward; plain tasks; the sandbox released on every path.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { loadHarborTasks } from "../benchmarks/harbor.js";
import { BwrapBackend } from "../sandbox/bwrap.js";
import { BwrapSandboxConfigSchema } from "../sandbox/config.js";
import { DOCKER_CAPABILITIES } from "../sandbox/docker/config.js";
import { SandboxPool } from "../sandbox/pool.js";
import type { SandboxSource } from "../sandbox/shared.js";
import { resolveSpec } from "../sandbox/spec.js";
import type { Sandbox, SandboxSpec } from "../sandbox/types.js";
import type { HarborTask, Task } from "../types/index.js";
import { openTaskEnvironment, VerifierError } from "./environment.js";

const FIXTURES = join(import.meta.dirname, "..", "benchmarks", "fixtures", "harbor");

let backend: BwrapBackend;
let pool: SandboxPool;
/** The pool, counting what is out, and the specs asked for. */
const out = new Set<Sandbox>();
const specs: (SandboxSpec | undefined)[] = [];
const sandboxes: SandboxSource = {
  async acquire(spec) {
    specs.push(spec);
    const s = await pool.acquire(spec);
    out.add(s);
    return s;
  },
  async release(s) {
    out.delete(s);
    await pool.release(s);
  },
};

before(async () => {
  backend = await BwrapBackend.start(BwrapSandboxConfigSchema.parse({ backend: "bwrap" }));
  pool = new SandboxPool(backend, { size: 1 });
});
after(async () => {
  assert.equal(out.size, 0, "every sandbox was released");
  await pool.close();
  await backend.close();
});

const b64 = (text: string) => Buffer.from(text).toString("base64");

/** A Harbor task whose tests/test.sh is `testSh`, its workdir /app with one file. */
function harborTask(testSh: string, over: Partial<HarborTask> = {}): Task {
  const harbor: HarborTask = {
    dir: "/tasks/t",
    workdir: "/app",
    files: [{ path: "main.txt", base64: b64("hello\n"), mode: 0o644 }],
    env: { GREETING: "hi" },
    tests: [{ path: "test.sh", base64: b64(testSh), mode: 0o644 }],
    verifier: { timeoutSec: 20, env: {} },
    limits: {},
    ...over,
  };
  return { id: "t", data: { instruction: "do it", harbor } };
}

async function verifyWith(testSh: string, before?: string[], over?: Partial<HarborTask>) {
  const env = await openTaskEnvironment(harborTask(testSh, over), { sandboxes });
  try {
    if (before) assert.equal((await env.sandbox.exec(before)).exitCode, 0);
    return await env.verify!();
  } finally {
    await env.release();
  }
}

describe("the Harbor fixtures", () => {
  for (const task of loadHarborTasks(FIXTURES)) {
    it(`${task.id}: the oracle gets reward 1, the untouched environment 0`, async () => {
      for (const oracle of [false, true]) {
        const env = await openTaskEnvironment(task, { sandboxes });
        try {
          assert.equal(env.cwd, "/app");
          assert.equal(env.instruction, task.data.instruction);
          if (oracle) {
            const solve = readFileSync(join(FIXTURES, task.id, "solution", "solve.sh"));
            await env.sandbox.upload([{ path: "solution/solve.sh", content: solve, mode: 0o755 }]);
            const r = await env.sandbox.exec(["bash", "/solution/solve.sh"]);
            assert.equal(r.exitCode, 0, r.stderr);
          }
          const result = await env.verify!();
          assert.equal(result.reward, oracle ? 1 : 0, result.output);
          assert.equal(result.timedOut, false);
          assert.ok(result.seconds > 0);
        } finally {
          await env.release();
        }
      }
    });
  }

  it("fix-failing-test: a module shadowing the stdlib's unittest (exit 0) does not pass its verifier", async () => {
    const fix = loadHarborTasks(FIXTURES).find((t) => t.id === "fix-failing-test")!;
    const env = await openTaskEnvironment(fix, { sandboxes });
    try {
      await env.sandbox.upload([{ path: "app/unittest.py", content: "import sys\nsys.exit(0)\n" }]);
      const result = await env.verify!();
      assert.equal(result.reward, 0, result.output);
    } finally {
      await env.release();
    }
  });

  it("the sandbox gets the task's links, env and limits", async () => {
    const [fix] = loadHarborTasks(FIXTURES);
    specs.length = 0;
    const env = await openTaskEnvironment(fix!, { sandboxes, spec: { env: { EXTRA: "1" } } });
    try {
      assert.deepEqual(specs[0], {
        env: { PYTHONDONTWRITEBYTECODE: "1", EXTRA: "1" },
        limits: { memoryMb: 512 },
        links: {
          "/app": "app",
          "/tests": "tests",
          "/solution": "solution",
          "/logs/verifier": "logs/verifier",
          "/logs/agent": "logs/agent",
          "/logs/artifacts": "logs/artifacts",
        },
      });
      assert.deepEqual(env.links, specs[0]!.links);
      assert.equal(env.timeoutSec, 300); // [agent].timeout_sec
      const r = await env.sandbox.exec(["sh", "-c", 'cd /app && ls && echo "$EXTRA"']);
      assert.equal(r.stdout, "calc.py\ntest_calc.py\n1\n");
    } finally {
      await env.release();
    }
  });
});

describe("the verifier", () => {
  it("reward.txt: one number; test.sh's exit code is kept and ignored; it runs in the workdir with the env", async () => {
    const r = await verifyWith(
      'echo "$PWD $GREETING $V" ; echo 0.25 > /logs/verifier/reward.txt; exit 3',
      undefined,
      { verifier: { timeoutSec: 20, env: { V: "v" } } },
    );
    assert.equal(r.reward, 0.25);
    assert.deepEqual(r.rewards, { reward: 0.25 });
    assert.equal(r.exitCode, 3);
    assert.equal(r.output, "/work/app hi v\n");
  });

  it("reward.json: numeric values are the rewards; `reward`, or the only value, is the reward", async () => {
    const a = await verifyWith(
      `echo '{"reward": 0.5, "tests": 3, "ok": true, "note": "x"}' > /logs/verifier/reward.json`,
    );
    assert.equal(a.reward, 0.5);
    assert.deepEqual(a.rewards, { reward: 0.5, tests: 3 });
    const b = await verifyWith(`echo '{"accuracy": 0.75}' > /logs/verifier/reward.json`);
    assert.equal(b.reward, 0.75);
    // no `reward` key: reward.txt supplies it
    const c = await verifyWith(
      `echo '{"a": 1, "b": 2}' > /logs/verifier/reward.json; echo 1 > /logs/verifier/reward.txt`,
    );
    assert.deepEqual([c.reward, c.rewards], [1, { a: 1, b: 2, reward: 1 }]);
  });

  it("a reward file or test the agent planted does not count; no reward file is a VerifierError naming both", async () => {
    const plant =
      "echo 1 > /logs/verifier/reward.txt; echo 'echo 1 > /logs/verifier/reward.txt' > /tests/extra.sh";
    await assert.rejects(
      verifyWith("echo checking; [ -e /tests/extra.sh ] && bash /tests/extra.sh; exit 1", [
        "sh",
        "-c",
        plant,
      ]),
      (e: Error) => {
        assert.ok(e instanceof VerifierError);
        assert.match(
          e.message,
          /\/tasks\/t: the verifier wrote no reward: neither \/logs\/verifier\/reward.json nor \/logs\/verifier\/reward.txt exists after tests\/test.sh \(test.sh exited 1\); its output:\nchecking/,
        );
        return true;
      },
    );
  });

  it("bad reward files are VerifierErrors naming the file", async () => {
    const bad: [string, RegExp][] = [
      ["printf '' > /logs/verifier/reward.txt", /\/logs\/verifier\/reward.txt is empty/],
      ["echo pass > /logs/verifier/reward.txt", /reward.txt must hold one number, got "pass\\n"/],
      ["echo '{' > /logs/verifier/reward.json", /reward.json is not JSON/],
      ["echo '[1]' > /logs/verifier/reward.json", /reward.json must be a JSON object/],
      [
        `echo '{"a": 1, "b": 2}' > /logs/verifier/reward.json`,
        /reward.json has no "reward" key and 2 numeric values \(a, b\); write "reward"/,
      ],
      [
        `echo '{"reward": 1e999, "x": 0.5}' > /logs/verifier/reward.json`,
        /reward.json: "reward" is not a finite number/,
      ],
    ];
    for (const [script, message] of bad) {
      await assert.rejects(verifyWith(script), (e: Error) => {
        assert.ok(e instanceof VerifierError, String(e));
        assert.match(e.message, message);
        return true;
      });
    }
  });

  it("a process the agent left running cannot forge the reward: the verifier starts with it gone", async () => {
    // A detached loop that keeps writing reward 1 (and the tests it would plant), started by the
    // agent before the verifier runs; the verifier's test.sh writes 0 and waits a little.
    const forger =
      "setsid sh -c 'while :; do echo 1 > /logs/verifier/reward.txt; mkdir -p /tests; echo \"echo 1 > /logs/verifier/reward.txt\" > /tests/test.sh; done' >/dev/null 2>&1 < /dev/null &";
    const r = await verifyWith("echo 0 > /logs/verifier/reward.txt; sleep 0.5", [
      "sh",
      "-c",
      forger,
    ]);
    assert.equal(r.reward, 0);
  });

  it("an agent that deleted its workdir gets the verifier's reward, not an error", async () => {
    const r = await verifyWith(
      "if [ -e main.txt ]; then echo 1; else echo 0; fi > /logs/verifier/reward.txt",
      ["sh", "-c", "rm -rf /work/app"],
    );
    assert.equal(r.reward, 0);
  });

  it("test.sh's output past the exec's output limit is clipped, not killed: the reward still counts", async () => {
    const r = await verifyWith(
      "head -c 3000000 /dev/zero | tr '\\0' x; echo; echo tail-line >&2; echo 1 > /logs/verifier/reward.txt",
    );
    assert.equal(r.reward, 1);
    assert.equal(r.exitCode, 0);
    assert.ok(r.output.length < 9000, `output of ${r.output.length} chars`);
    assert.match(r.output, /^xxx/);
    assert.match(r.output, /cut/);
    assert.match(r.output, /tail-line\n$/);
  });

  it("an exec timeout past node's timer range (24.8 days) is refused, not run as 1 ms", async () => {
    const env = await openTaskEnvironment(harborTask("true"), { sandboxes });
    try {
      await assert.rejects(
        env.sandbox.exec(["sleep", "0.2"], { timeoutS: 3e6 }),
        /timeoutS must be a positive number of seconds up to 2147483 \(24.8 days\), got 3000000/,
      );
    } finally {
      await env.release();
    }
  });

  it("a test.sh past [verifier].timeout_sec is stopped; with no reward the error says so", async () => {
    await assert.rejects(
      verifyWith("sleep 30", undefined, { verifier: { timeoutSec: 0.5, env: {} } }),
      /test.sh timed out after 0.5 s \(\[verifier\].timeout_sec\)/,
    );
  });
});

describe("plain tasks and malformed ones", () => {
  it("a plain task: its files in the work dir, cwd the work dir, no verifier", async () => {
    const env = await openTaskEnvironment(
      { id: "p", data: { question: "what is in a.txt?", files: { "d/a.txt": "42" } } },
      { sandboxes },
    );
    try {
      assert.equal(env.cwd, env.sandbox.workdir);
      assert.equal(env.instruction, "what is in a.txt?");
      assert.equal(env.verify, undefined);
      assert.deepEqual(env.links, {});
      assert.equal(env.timeoutSec, undefined);
      assert.equal(new TextDecoder().decode(await env.sandbox.download("d/a.txt")), "42");
    } finally {
      await env.release();
      await env.release(); // twice is once
    }
  });

  it("malformed tasks are errors naming the task and the field; nothing stays acquired", async () => {
    const bad: [Task, RegExp][] = [
      [{ id: "a", data: {} }, /task a: neither data.instruction nor data.question is set/],
      [
        { id: "b", data: { question: "q", files: { "/abs": "x" } } },
        /task b: data.files: .*absolute/,
      ],
      [{ id: "c", data: { question: "q", files: [] } }, /task c: data.files: /],
      [
        { id: "d", data: { instruction: "x", harbor: { workdir: "app" } } },
        /task d: data.harbor.dir: .*\(load Harbor tasks with harbor:DIR\)/,
      ],
      [
        { id: "e", data: { harbor: harborTask("true").data.harbor } },
        /task e: a Harbor task needs data.instruction/,
      ],
      [
        harborTask("true", { workdir: "/usr/app" }),
        /sandbox link \/usr\/app would shadow or sit inside the sandbox's own \/usr/,
      ],
    ];
    for (const [task, message] of bad) {
      await assert.rejects(openTaskEnvironment(task, { sandboxes }), message);
      assert.equal(out.size, 0);
    }
  });

  it("on a backend without links (docker) a Harbor task is refused naming the backend and the fix", async () => {
    const docker: SandboxSource = {
      async acquire(spec) {
        resolveSpec("docker", DOCKER_CAPABILITIES, spec);
        throw new Error("unreachable: the spec was refused above");
      },
      async release() {},
    };
    await assert.rejects(
      openTaskEnvironment(harborTask("true"), { sandboxes: docker }),
      /^Error: task t: the docker sandbox backend cannot make path links \(asked for \/app, .*\); use the bwrap backend$/,
    );
  });

  it("an aborted signal stops it; nothing stays acquired", async () => {
    const ac = new AbortController();
    ac.abort(new Error("stop"));
    await assert.rejects(
      openTaskEnvironment({ id: "p", data: { question: "q" } }, { sandboxes, signal: ac.signal }),
      /stop/,
    );
    assert.equal(out.size, 0);
  });
});
