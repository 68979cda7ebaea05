/**
 * shell.ts: the quoting of a printed command line, and a foreground command's exit code (its own,
 * or 128 + a signal's number), the signals passed on to it, and the listeners removed once it is
 * gone (exited, or never started).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { runForeground, shellQuote } from "./shell.js";

const LISTENED = ["SIGINT", "SIGTERM", "SIGHUP", "exit"] as const;
const counts = () => LISTENED.map((e) => process.listenerCount(e));

const sh = (script: string) =>
  runForeground({ argv: ["sh", "-c", script], env: process.env }, { stdio: "ignore" });

test("a word is quoted only when the shell needs it", () => {
  assert.equal(shellQuote("Qwen/Qwen3-0.6B"), "Qwen/Qwen3-0.6B");
  assert.equal(shellQuote("a=b:c,d@e%f+g"), "a=b:c,d@e%f+g");
  assert.equal(shellQuote("/m/my model"), "'/m/my model'");
  assert.equal(shellQuote(`{"backend":"disk"}`), `'{"backend":"disk"}'`);
  assert.equal(shellQuote("it's"), `'it'\\''s'`);
  assert.equal(shellQuote(""), "''");
});

test("the exit code is the command's, a death by signal N is 128 + N, and the listeners go", async () => {
  const before = counts();
  assert.equal(await sh("exit 7").exited, 7);
  assert.equal(await sh("kill -KILL $$").exited, 137);
  assert.equal(await sh("kill -TERM $$").exited, 143);
  assert.deepEqual(counts(), before, "no listener is left behind");
});

test("SIGINT, SIGTERM and SIGHUP that reach rllm go to the command, once", async () => {
  const before = counts();
  for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    // the command reports the signal it got in its exit code (its trap: 10, 11, 12)
    const { exited } = sh(
      "trap 'exit 10' INT; trap 'exit 11' TERM; trap 'exit 12' HUP; while :; do sleep 0.1; done",
    );
    await new Promise((r) => setTimeout(r, 300));
    const listeners = process.listeners(sig);
    assert.ok(listeners.length > 0, `${sig}: listened for while the command runs`);
    for (const l of listeners) (l as (s: NodeJS.Signals) => void)(sig);
    assert.equal(await exited, { SIGINT: 10, SIGTERM: 11, SIGHUP: 12 }[sig]);
  }
  assert.deepEqual(counts(), before, "every listener is removed when the command exits");
});

test("a program that is not found rejects with the message given, and the listeners go", async () => {
  const before = counts();
  await assert.rejects(
    runForeground({ argv: ["/nonexistent/vllm"], env: process.env }, { stdio: "ignore" }).exited,
    /^Error: \/nonexistent\/vllm was not found$/,
  );
  await assert.rejects(
    runForeground(
      { argv: ["/nonexistent/python"], env: process.env },
      { stdio: "ignore", notFound: "install it" },
    ).exited,
    /^Error: install it$/,
  );
  assert.deepEqual(counts(), before);
});
