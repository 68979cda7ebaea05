import assert from "node:assert/strict";
import { test } from "node:test";
import { type Episode, type EpisodeInput, EpisodeSchema } from "../types/index.js";
import { episodeSftRows, FilterError, parseFilter } from "./curate.js";

const episode = (over: Partial<EpisodeInput> = {}): Episode =>
  EpisodeSchema.parse({
    id: "e1",
    taskId: "t/1",
    task: { id: "t/1", index: 4, data: {} },
    attempt: 1,
    reward: 1,
    isCorrect: true,
    terminationReason: "env_done",
    trajectories: [
      {
        steps: [
          {
            messages: [
              { role: "system", content: "S" },
              { role: "user", content: "Q" },
            ],
            response: { content: "A" },
          },
        ],
      },
    ],
    metrics: { turns: 2 },
    ...over,
  });

const accepts = (expr: string, ep: Episode) => parseFilter(expr)(ep);

test("filters: fields, comparisons, && || ! and parentheses", () => {
  const good = episode();
  const bad = episode({ reward: 0, isCorrect: false, terminationReason: "max_turns_exceeded" });
  const cases: [string, boolean, boolean][] = [
    ["isCorrect", true, false],
    ["!isCorrect", false, true],
    ["reward >= 1", true, false],
    ["reward < 0.5", false, true],
    ['terminationReason == "env_done"', true, false],
    ['terminationReason != "env_done"', false, true],
    ["steps <= 3 && isCorrect", true, false],
    ["steps > 1 || reward == 0", false, true],
    ["!(isCorrect && steps == 1)", false, true],
    // && binds tighter than ||: false || (true && true).
    ["reward == 5 || isCorrect && steps == 1", true, false],
    ['index == 4 && attempt == 1 && taskId == "t/1"', true, true],
    ["metrics.turns >= 2", true, true],
    ["metrics.absent >= 0", false, false],
    ["error == null && !infraFailed", true, true],
    ["true", true, true],
    ["1e0 == reward", true, false],
  ];
  for (const [expr, onGood, onBad] of cases) {
    assert.equal(accepts(expr, good), onGood, `${expr} on the good episode`);
    assert.equal(accepts(expr, bad), onBad, `${expr} on the bad episode`);
  }
});

test("filters: an unscored (infrastructure-failed) episode has reward null: comparisons are false", () => {
  const lost = episode({ infraFailed: true, reward: null, isCorrect: false });
  assert.equal(accepts("reward >= 0", lost), false);
  assert.equal(accepts("reward < 1", lost), false);
  assert.equal(accepts("infraFailed && reward == null", lost), true);
  assert.equal(accepts("isCorrect", episode({ infraFailed: true })), false);
});

test("filters: infra-failed and errored episodes pass only a filter that names them", () => {
  // Unscored (the judge down) is not "wrong", and an agent that crashed left no finished answer:
  // neither becomes an SFT row under a filter that did not ask for it.
  const lost = episode({ infraFailed: true, reward: null, isCorrect: false });
  const crashed = episode({
    terminationReason: "error",
    error: "agent threw",
    reward: 0,
    isCorrect: false,
  });
  for (const expr of ["!isCorrect", "steps >= 1", "reward == null || reward == 0", "true"]) {
    assert.equal(accepts(expr, lost), false, `${expr} on an infra-failed episode`);
    assert.equal(accepts(expr, crashed), false, `${expr} on an errored episode`);
  }
  assert.equal(accepts("infraFailed", lost), true);
  assert.equal(accepts("infraFailed || !isCorrect", crashed), false);
  assert.equal(accepts('terminationReason == "error"', crashed), true);
  assert.equal(accepts("error != null", crashed), true);
  assert.equal(accepts("!isCorrect", episode({ reward: 0, isCorrect: false })), true);
});

test("filters: a comparison that can never hold (types apart) is an error, not an empty output", () => {
  const fails = (expr: string, message: RegExp) =>
    assert.throws(
      () => parseFilter(expr),
      (error: unknown) => {
        assert.ok(error instanceof FilterError, String(error));
        assert.match(error.message, message);
        return true;
      },
    );
  fails("isCorrect == 1", /isCorrect is a boolean and 1 a number/);
  fails('reward >= "0.5"', /">=" compares numbers; "0\.5" is a string/);
  fails("terminationReason > 1", /">" compares numbers; terminationReason is a string/);
  fails('attempt == "1"', /attempt is a number and "1" a string/);
  fails("reward < null", /"<" compares numbers; null/);
  fails("isCorrect == reward", /isCorrect is a boolean and reward a number/);
  // Alike types, and null against anything with == / !=, stay fine.
  assert.equal(
    accepts("isCorrect == true && reward != null && metrics.turns == 2", episode()),
    true,
  );
  assert.equal(accepts('error == null && taskId != "x"', episode()), true);
});

test("filters: a bad string literal is a FilterError at its column; a metric is an own key only", () => {
  for (const [expr, column] of [
    ['error == "a\\qb"', 10],
    ['taskId == "tab\there"', 11],
  ] as const) {
    assert.throws(
      () => parseFilter(expr),
      (error: unknown) =>
        error instanceof FilterError &&
        new RegExp(`at column ${column}: bad string`).test(error.message),
      expr,
    );
  }
  assert.equal(accepts('error == "a\\"b"', episode({ error: 'a"b' })), true);
  // Object.prototype's keys are not metrics.
  for (const name of ["constructor", "toString", "__proto__", "hasOwnProperty"]) {
    assert.equal(accepts(`metrics.${name}`, episode()), false, name);
    assert.equal(accepts(`metrics.${name} == null`, episode()), true, name);
  }
});

test("filters: a bad expression or an unknown field is an error pointing at the column", () => {
  const fails = (expr: string, message: RegExp, column: number) =>
    assert.throws(
      () => parseFilter(expr),
      (error: unknown) => {
        assert.ok(error instanceof FilterError);
        assert.match(error.message, message);
        assert.match(error.message, new RegExp(`at column ${column}:`));
        const lines = error.message.split("\n");
        assert.equal(lines[1], `  ${expr}`);
        assert.equal(lines[2], `  ${" ".repeat(column - 1)}^`);
        return true;
      },
    );
  fails("reward >= ", /expected a field or a value, found the end/, 11);
  fails("score > 1", /unknown field "score"; fields are reward, isCorrect/, 1);
  fails("isCorrect && (steps < 3", /expected "\)", found the end/, 24);
  fails("reward = 1", /unexpected "="/, 8);
  fails("isCorrect steps", /expected "&&", "\|\|" or the end, found "steps"/, 11);
  fails("process.exit(1)", /unknown field "process.exit"/, 1);
  fails("", /expected a field or a value/, 1);
});

test("an episode's SFT rows: the prompt as sent, then the final answer; tool turns kept", () => {
  assert.deepEqual(episodeSftRows(episode()), [
    {
      messages: [
        { role: "system", content: "S" },
        { role: "user", content: "Q" },
        { role: "assistant", content: "A" },
      ],
    },
  ]);
  const call = { id: "c1", type: "function" as const, function: { name: "bash", arguments: "{}" } };
  const multi = episode({
    trajectories: [
      {
        steps: [
          {
            messages: [{ role: "user", content: "Q" }],
            response: { content: "", toolCalls: [call] },
          },
          {
            traceId: "tr-2",
            messages: [
              { role: "user", content: "Q" },
              { role: "assistant", content: "", tool_calls: [call] },
              { role: "tool", tool_call_id: "c1", content: "out" },
            ],
            response: { content: "done", reasoning: "hidden" },
          },
        ],
      },
      // No steps, an empty final answer, a prompt-less step: no rows.
      { steps: [] },
      { steps: [{ messages: [{ role: "user", content: "Q" }], response: { content: "  " } }] },
      { steps: [{ messages: [], response: { content: "x" } }] },
    ],
  });
  const messages = [
    { role: "user", content: "Q" },
    { role: "assistant", content: "", tool_calls: [call] },
    { role: "tool", tool_call_id: "c1", content: "out" },
    { role: "assistant", content: "done" },
  ];
  assert.deepEqual(episodeSftRows(multi), [{ messages }]);
  // The tools the last call offered come with the row, looked up by its trace id.
  const bash = { type: "function" as const, function: { name: "bash", parameters: {} } };
  const asked: string[] = [];
  const toolsOf = (id: string) => {
    asked.push(id);
    return id === "tr-2" ? [bash] : undefined;
  };
  assert.deepEqual(episodeSftRows(multi, toolsOf), [{ messages, tools: [bash] }]);
  assert.deepEqual(asked, ["tr-2"]);
});
