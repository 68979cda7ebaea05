import assert from "node:assert/strict";
import { after, test } from "node:test";
import { closeSharedSandboxes } from "../sandbox/shared.js";
import { type GraderName, getGrader, graderNames, graders, isGraderName } from "./index.js";

test("the registry holds every built-in grader", () => {
  const expected: GraderName[] = [
    "math",
    "qa_f1",
    "qa_em",
    "countdown",
    "multiple_choice",
    "code",
    "chrf",
    "bfcl",
    "ifbench",
    "judge",
    "llm_equality",
    "ifeval",
  ];
  assert.deepEqual(graderNames, expected);
  for (const name of expected) {
    assert.equal(typeof graders[name], "function");
    assert.equal(getGrader(name), graders[name]);
    assert.ok(isGraderName(name));
  }
  assert.ok(!isGraderName("toString")); // inherited keys are not graders
});

test("getGrader names the known graders when the name is unknown", () => {
  assert.throws(
    () => getGrader("maths"),
    (e: Error) =>
      e.message.startsWith(
        'Unknown grader "maths". Known graders: math, qa_f1, qa_em, countdown, multiple_choice, code, chrf, bfcl, ifbench, judge, llm_equality, ifeval.',
      ),
  );
});

test("registry graders grade through the shared contract", async () => {
  const math = await getGrader("math")({ id: "g", data: { answer: "#### 18" } }, "\\boxed{18}");
  assert.equal(math.reward, 1);
  const qa = await getGrader("qa_f1")({ id: "h", data: { answer: "Paris" } }, "Answer: Paris");
  assert.deepEqual(qa.signals, { f1: 1, em: 1 });
  const cd = await getGrader("countdown")(
    { id: "c", data: { numbers: [3, 8, 1], target: 24 } },
    "<answer>3 * 8 - 1</answer>",
  );
  assert.equal(cd.reward, 0); // the registry's countdown has no format score
  const mc = await getGrader("multiple_choice")({ id: "m", data: { answer: "B" } }, "Answer: B");
  assert.equal(mc.isCorrect, true);
});

after(closeSharedSandboxes);

test("the registry's code grader runs programs in the process's shared sandbox pool", async () => {
  const task = { id: "k", data: { tests: { kind: "asserts", asserts: ["assert inc(1) == 2"] } } };
  const right = await getGrader("code")(task, "```python\ninc = lambda x: x + 1\n```");
  assert.equal(right.reward, 1);
  const wrong = await getGrader("code")(task, "```python\ninc = lambda x: x\n```");
  assert.equal(wrong.reward, 0);
});
