import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { test } from "node:test";
import { createProgress } from "./progress.js";

function sink(isTTY: boolean) {
  let out = "";
  const stream = Object.assign(
    new Writable({
      write(chunk, _enc, cb) {
        out += chunk.toString();
        cb();
      },
    }),
    { isTTY, columns: 100 },
  );
  return { stream, text: () => out };
}

test("on a TTY: one line redrawn in place with done/total, rate, mean reward and errors", () => {
  let now = 0;
  const s = sink(true);
  const p = createProgress({ stream: s.stream, now: () => now });
  p.start(10);
  now = 2000;
  p.update({ done: 4, meanReward: 0.25, errors: 1 });
  p.finish();
  const text = s.text();
  assert.match(text, /\r\[#{12}-{18}\] 4\/10 rollouts {2}2\.0\/s {2}reward 0\.250 {2}errors 1/);
  assert.ok(text.endsWith("\n"));
  assert.equal(text.split("\n").length, 2, "a single line, redrawn");
});

test("elsewhere: plain lines, at most every interval and at the end", () => {
  let now = 0;
  const s = sink(false);
  const p = createProgress({ stream: s.stream, now: () => now, intervalSeconds: 5 });
  p.start(3);
  now = 1000;
  p.update({ done: 1, meanReward: null, errors: 0 });
  now = 6000;
  p.update({ done: 2, meanReward: 1, errors: 0 });
  now = 7000;
  p.update({ done: 3, meanReward: 0.5, errors: 2 });
  p.finish();
  assert.deepEqual(s.text().trim().split("\n"), [
    "rollouts: 3 to run",
    "2/3 rollouts  0.3/s  reward 1.000  errors 0",
    "3/3 rollouts  0.4/s  reward 0.500  errors 2",
  ]);
  assert.doesNotMatch(s.text(), /\r/);
});
