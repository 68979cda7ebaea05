/**
 * harbor:DIR: the fixtures read into Tasks, every malformed task dir an error naming the path and
 * what to fix, and the verifier evaluator. (The fixtures' oracles run in agents/environment.test.ts;
 * `rllm eval harbor:DIR` end to end in cli/eval-harbor.test.ts.)
 */
import assert from "node:assert/strict";
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, describe, it } from "node:test";
import type { Episode, HarborTask, Task } from "../types/index.js";
import { getBenchmark } from "./catalog.js";
import { harborBenchmark, loadHarborTasks, verifierEvaluator } from "./harbor.js";
import { loadBenchmark } from "./load.js";

const FIXTURES = join(import.meta.dirname, "fixtures", "harbor");
const tmp = mkdtempSync(join(tmpdir(), "rllm-harbor-test-"));
after(() => rmSync(tmp, { recursive: true, force: true }));

const harborOf = (t: Task) => t.data.harbor as HarborTask;
const text = (base64: string) => Buffer.from(base64, "base64").toString("utf8");

/** A copy of the write-script fixture with `files` written over it (null deletes). */
let copies = 0;
function taskDir(files: Record<string, string | null>): string {
  const dir = join(tmp, `t${copies++}`, "my-task");
  cpSync(join(FIXTURES, "write-script"), dir, { recursive: true });
  for (const [path, content] of Object.entries(files)) {
    const full = join(dir, path);
    if (content === null) rmSync(full, { recursive: true, force: true });
    else {
      mkdirSync(dirname(full), { recursive: true });
      writeFileSync(full, content);
    }
  }
  return dir;
}

const dockerfile = (...lines: string[]) => ({
  "environment/Dockerfile": ["FROM debian:bookworm-slim", ...lines].join("\n"),
});

describe("reading Harbor tasks", () => {
  it("a dir of task dirs: one Task each, sorted, with what the environment needs", () => {
    const tasks = loadHarborTasks(FIXTURES);
    assert.deepEqual(
      tasks.map((t) => [t.id, t.index, t.dataSource]),
      [
        ["fix-failing-test", 0, `harbor:${FIXTURES}`],
        ["sum-numbers", 1, `harbor:${FIXTURES}`],
        ["write-script", 2, `harbor:${FIXTURES}`],
      ],
    );
    const [fix, sum, script] = tasks.map(harborOf) as [HarborTask, HarborTask, HarborTask];
    assert.match(
      String(tasks[0]!.data.instruction),
      /The unit test in `\/app\/test_calc.py` fails/,
    );
    assert.equal(fix.workdir, "/app");
    assert.deepEqual(
      fix.files.map((f) => [f.path, f.mode]),
      [
        ["calc.py", 0o644],
        ["test_calc.py", 0o644],
      ],
    );
    assert.match(text(fix.files[0]!.base64), /return a - b/);
    assert.deepEqual(fix.env, { PYTHONDONTWRITEBYTECODE: "1" });
    assert.deepEqual(fix.limits, { memoryMb: 512 });
    assert.deepEqual(fix.verifier, { timeoutSec: 60, env: {} });
    assert.equal(fix.agentTimeoutSec, 300);
    assert.deepEqual(
      fix.tests.map((f) => [f.path, f.mode]),
      [
        ["test.sh", 0o755],
        ["test_outputs.py", 0o644],
      ],
    );
    // COPY of a directory, ENV with a continuation and quotes, memory = "512M", [verifier.env]
    assert.deepEqual(
      sum.files.map((f) => f.path),
      ["data/a.txt", "data/b.txt"],
    );
    assert.deepEqual(sum.env, { REPORT: "report.txt", LANG: "C.UTF-8" });
    assert.deepEqual(sum.limits, { memoryMb: 512, diskMb: 64 });
    assert.deepEqual(sum.verifier, { timeoutSec: 30, env: { EXPECTED_SUM: "60" } });
    assert.equal(sum.agentTimeoutSec, undefined);
    // COPY README.md /app/ (a destination ending in /), the default verifier timeout
    assert.deepEqual(
      script.files.map((f) => f.path),
      ["README.md"],
    );
    assert.equal(script.verifier.timeoutSec, 60);
  });

  it("one task dir is one task; harbor:DIR is a catalog entry whose split holds them", async () => {
    const one = loadHarborTasks(join(FIXTURES, "sum-numbers"));
    assert.deepEqual(
      one.map((t) => t.id),
      ["sum-numbers"],
    );
    const entry = getBenchmark(`harbor:${FIXTURES}`);
    assert.equal(entry.defaultAgent, "tool-agent");
    assert.equal(entry.grader, "verifier");
    const tasks = await loadBenchmark(`harbor:${FIXTURES}`, { maxExamples: 2 });
    assert.deepEqual(
      tasks.map((t) => t.id),
      ["fix-failing-test", "sum-numbers"],
    );
    const picked = await loadBenchmark(`harbor:${FIXTURES}`, { taskIndices: [2] });
    assert.deepEqual(
      picked.map((t) => t.id),
      ["write-script"],
    );
    assert.throws(() => entry.toTask({}, 0, "test"), /read from their directories/);
  });

  it("Dockerfile forms: a file COPY to a WORKDIR, --chmod, JSON form, ENV KEY VALUE, ignored lines", () => {
    const dir = taskDir({
      ...dockerfile(
        "LABEL x=y",
        "WORKDIR /srv",
        "WORKDIR app",
        "COPY --chmod=755 README.md /srv/app",
        'COPY ["README.md", "sub/copy.md"]',
        "ENV GREETING hello world",
        "USER nobody",
        'CMD ["sleep", "infinity"]',
      ),
    });
    const [t] = loadHarborTasks(dir);
    const h = harborOf(t!);
    assert.equal(h.workdir, "/srv/app");
    assert.deepEqual(
      h.files.map((f) => [f.path, f.mode]),
      [
        ["README.md", 0o755],
        ["sub/copy.md", 0o644],
      ],
    );
    assert.deepEqual(h.env, { GREETING: "hello world" });
  });

  it("line continuations as Docker joins them: the next line as it is, empty and comment lines skipped; a BOM", () => {
    const dir = taskDir({
      "environment/Dockerfile": [
        "\uFEFFFROM debian:bookworm-slim",
        "WORKDIR /app",
        "ENV JOINED=ab\\",
        "cd \\",
        "",
        "# a comment inside",
        "    NEXT=1",
        "COPY --chown=1:1 \\",
        "  README.md \\",
        "  /app/",
      ].join("\n"),
    });
    const h = harborOf(loadHarborTasks(dir)[0]!);
    assert.deepEqual(h.env, { JOINED: "abcd", NEXT: "1" });
    assert.deepEqual(
      h.files.map((f) => f.path),
      ["README.md"],
    );
  });
});

describe("malformed task dirs: errors naming the path and what to fix", () => {
  const cases: [string, () => string, RegExp][] = [
    ["a missing dir", () => join(tmp, "nope"), /nope is not a directory; give a Harbor task/],
    [
      "a dir without tasks",
      () => {
        const d = join(tmp, "empty");
        mkdirSync(d, { recursive: true });
        return d;
      },
      /empty\/task.toml is missing and .* has no task directories/,
    ],
    [
      "a subdir without task.toml",
      () => {
        const d = dirname(taskDir({}));
        mkdirSync(join(d, "stray"));
        return d;
      },
      /stray\/task.toml is missing; every subdirectory/,
    ],
    [
      "bad TOML",
      () => taskDir({ "task.toml": "[verifier\n" }),
      /task.toml is not valid TOML at line 1/,
    ],
    [
      "a misspelt key",
      () => taskDir({ "task.toml": "[verifier]\ntimout_sec = 5\n" }),
      /task.toml: unknown key verifier.timout_sec/,
    ],
    [
      "a key of the wrong type",
      () => taskDir({ "task.toml": '[verifier]\ntimeout_sec = "soon"\n' }),
      /task.toml: verifier.timeout_sec: .*number/,
    ],
    [
      "a timeout past what a timer holds",
      () => taskDir({ "task.toml": "[verifier]\ntimeout_sec = 3000000\n" }),
      /task.toml: verifier.timeout_sec: at most 2147483 s \(24.8 days\)/,
    ],
    [
      "a size of 0",
      () => taskDir({ "task.toml": '[environment]\nmemory = "0G"\n' }),
      /environment.memory: a size above 0/,
    ],
    [
      "a bad size",
      () => taskDir({ "task.toml": '[environment]\nmemory = "lots"\n' }),
      /environment.memory: a size such as "2G"/,
    ],
    [
      "GPUs",
      () => taskDir({ "task.toml": "[environment]\ngpus = 1\n" }),
      /\[environment\].gpus = 1, but rllm's sandboxes have no GPU/,
    ],
    [
      "a host variable in env",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: Harbor's ${VAR} syntax, literally
      () => taskDir({ "task.toml": '[verifier.env]\nKEY = "${OPENAI_API_KEY}"\n' }),
      /\[verifier\].env.KEY = .*host variables/,
    ],
    [
      "an empty instruction.md",
      () => taskDir({ "instruction.md": " \n\n" }),
      /my-task\/instruction.md is empty: the agent would get no instruction/,
    ],
    [
      "no instruction.md",
      () => taskDir({ "instruction.md": null }),
      /my-task\/instruction.md is missing: a Harbor task needs it/,
    ],
    [
      "no tests/test.sh",
      () => taskDir({ "tests/test.sh": null }),
      /my-task\/tests\/test.sh is missing: a Harbor task needs it \(the verifier/,
    ],
    [
      "no Dockerfile",
      () => taskDir({ "environment/Dockerfile": null }),
      /environment\/Dockerfile is missing: a Harbor task's environment\/ needs a Dockerfile/,
    ],
    [
      "only a prebuilt image",
      () =>
        taskDir({
          "environment/Dockerfile": null,
          "task.toml": '[environment]\ndocker_image = "org/img:1"\n',
        }),
      /names only its prebuilt image org\/img:1 \(\[environment\].docker_image\): it needs a container runtime/,
    ],
    [
      "a docker-compose environment",
      () =>
        taskDir({
          "environment/Dockerfile": null,
          "environment/docker-compose.yaml": "services:\n  main:\n    build: .\n",
        }),
      /the environment is environment\/docker-compose.yaml: a docker-compose environment needs a container runtime/,
    ],
    [
      "a RUN line",
      () => taskDir(dockerfile("WORKDIR /app", "RUN apt-get install -y jq")),
      /Dockerfile:3: RUN apt-get install -y jq: this task needs a container runtime/,
    ],
    [
      "an image the host cannot stand in for",
      () => taskDir({ "environment/Dockerfile": "FROM node:20\nWORKDIR /app\n" }),
      /Dockerfile:1: FROM node:20: .*stand in for ubuntu, debian, python and buildpack-deps images only/,
    ],
    [
      "a multi-stage build",
      () => taskDir(dockerfile("FROM python:3.12 AS two", "WORKDIR /app")),
      /Dockerfile:2: a second FROM/,
    ],
    ["ARG", () => taskDir(dockerfile("ARG V=1", "WORKDIR /app")), /Dockerfile:2: ARG/],
    ["no WORKDIR", () => taskDir(dockerfile("COPY README.md /")), /Dockerfile: no WORKDIR/],
    [
      "a COPY outside the WORKDIR",
      () => taskDir(dockerfile("WORKDIR /app", "COPY README.md /etc/motd")),
      /Dockerfile:3: COPY\/ADD puts \/etc\/motd outside the WORKDIR \/app/,
    ],
    [
      "a wildcard",
      () => taskDir(dockerfile("WORKDIR /app", "COPY *.md ./")),
      /Dockerfile:3: COPY: wildcards \(\*\.md\)/,
    ],
    [
      "a missing source",
      () => taskDir(dockerfile("WORKDIR /app", "COPY nothere.txt .")),
      /Dockerfile:3: COPY: nothere.txt does not exist in environment\//,
    ],
    [
      "a source outside the context",
      () => taskDir(dockerfile("WORKDIR /app", "COPY ../task.toml .")),
      /COPY: \.\.\/task.toml is outside the build context/,
    ],
    [
      "ADD of a URL",
      () => taskDir(dockerfile("WORKDIR /app", "ADD https://example.com/x.txt .")),
      /ADD: ADD of a URL/,
    ],
    [
      "ADD of an archive",
      () =>
        taskDir({ ...dockerfile("WORKDIR /app", "ADD a.tar.gz ."), "environment/a.tar.gz": "x" }),
      /ADD of an archive \(a.tar.gz\) unpacks it/,
    ],
    [
      "COPY --from",
      () => taskDir(dockerfile("WORKDIR /app", "COPY --from=build /x .")),
      /COPY: --from is not read/,
    ],
    ["ENV with $", () => taskDir(dockerfile("WORKDIR /app", "ENV P=$PATH")), /ENV with \$/],
    [
      "an unknown instruction",
      () => taskDir(dockerfile("WORKDIR /app", "FROBNICATE")),
      /Dockerfile:3: unknown instruction FROBNICATE/,
    ],
    [
      "nothing before FROM",
      () => taskDir({ "environment/Dockerfile": "WORKDIR /app\n" }),
      /WORKDIR before FROM/,
    ],
  ];
  for (const [what, make, message] of cases) {
    it(what, () => {
      const dir = make();
      assert.throws(() => loadHarborTasks(dir), message);
      assert.throws(() => harborBenchmark(dir), message); // harbor:DIR reports the same
    });
  }

  it("a COPY source that is (or goes through) a symlink out of environment/ is refused, never read", () => {
    const outside = join(tmp, "secret-dir");
    mkdirSync(outside, { recursive: true });
    writeFileSync(join(outside, "secret.txt"), "host secret\n");
    const cases: [string, string][] = [
      ["secret.txt", join(outside, "secret.txt")], // a file symlink
      ["sub/secret.txt", outside], // through a dir symlink
      ["sub", outside], // a dir symlink copied whole
    ];
    for (const [src, target] of cases) {
      const dir = taskDir(dockerfile("WORKDIR /app", `COPY ${src} /app/`));
      symlinkSync(target, join(dir, "environment", src.split("/")[0]!));
      assert.throws(
        () => loadHarborTasks(dir),
        new RegExp(`COPY: ${src} leads out of the build context environment/`),
      );
    }
  });

  it("a task dir given as a symlink in a dir of tasks is read, not skipped", () => {
    const tasks = join(tmp, "linked-tasks");
    mkdirSync(tasks, { recursive: true });
    symlinkSync(taskDir({}), join(tasks, "b-linked"));
    cpSync(join(FIXTURES, "sum-numbers"), join(tasks, "a-real"), { recursive: true });
    assert.deepEqual(
      loadHarborTasks(tasks).map((t) => t.id),
      ["a-real", "b-linked"],
    );
  });

  it("a task file or dir that is a symlink out of the task dir is refused, never read", () => {
    const outside = join(tmp, "outside-task");
    mkdirSync(join(outside, "tests"), { recursive: true });
    writeFileSync(join(outside, "secret.md"), "host secret\n");
    writeFileSync(join(outside, "tests", "test.sh"), "echo 1 > /logs/verifier/reward.txt\n");
    for (const [name, target] of [
      ["instruction.md", join(outside, "secret.md")],
      ["tests", join(outside, "tests")],
      ["environment", join(FIXTURES, "sum-numbers", "environment")],
      ["environment/Dockerfile", join(FIXTURES, "sum-numbers", "environment", "Dockerfile")],
    ] as const) {
      const dir = taskDir({ [name]: null });
      symlinkSync(target, join(dir, name));
      assert.throws(
        () => loadHarborTasks(dir),
        new RegExp(`my-task/${name} leads out of the task dir \\(to ${target}\\)`),
      );
    }
  });

  it("a file that is neither regular nor a dir (a symlink) is named", () => {
    const dir = taskDir({});
    symlinkSync("/etc/passwd", join(dir, "tests", "link"));
    assert.throws(
      () => loadHarborTasks(dir),
      /tests\/link is not a regular file or directory; remove it/,
    );
  });
});

describe("the verifier evaluator", () => {
  const task: Task = { id: "t1", data: {} };
  const episode = (info: Record<string, unknown> | undefined): Episode =>
    ({
      id: "e",
      taskId: "t1",
      attempt: 0,
      trajectories: [{ name: "my-agent", steps: [] }],
      terminationReason: "env_done",
      infraFailed: false,
      ...(info ? { info } : {}),
    }) as unknown as Episode;

  it("the reward is info.verifier.reward, with every reward as signals", async () => {
    const out = await verifierEvaluator().evaluate(
      task,
      episode({ verifier: { reward: 1, rewards: { reward: 1, one_line: 0 } } }),
    );
    assert.deepEqual(out, { reward: 1, isCorrect: true, signals: { reward: 1, one_line: 0 } });
    const zero = await verifierEvaluator().evaluate(task, episode({ verifier: { reward: 0 } }));
    assert.deepEqual(zero, { reward: 0, isCorrect: false });
  });

  it("no verifier result is an error naming the agent, or the verifier's own error — never 0", async () => {
    await assert.rejects(
      verifierEvaluator().evaluate(task, episode(undefined)),
      /task t1: my-agent returned no verifier result \(episode info.verifier\)/,
    );
    await assert.rejects(
      verifierEvaluator().evaluate(task, episode({ verifierError: "reward.txt is empty" })),
      /task t1: the verifier gave no reward: reward.txt is empty/,
    );
  });
});
