/**
 * The two runner programs the `code` grader uploads next to a candidate program: one for Python,
 * one for Node (JavaScript, and TypeScript once code.ts has transpiled it). They run the tests whose
 * verdict needs the candidate's own interpreter — HumanEval's `check(candidate)`, MBPP's asserts,
 * LiveCodeBench's call-based tests — one at a time, each under a wall-clock timer, and write one
 * JSON line per event to a result file. stdin/stdout tests need no runner: the program runs
 * alone and the grader compares its output on the host.
 *
 * Protocol (the grader's side is in code.ts):
 * - stdin: a nonce line, then the spec as JSON: {mode: "check" | "asserts" | "call", program,
 *   result, timeout (seconds per step), stopOnFailure, tests: string[], setup?, entryPoint?,
 *   fnName?}. Both are read whole before any candidate code runs.
 * - result file, one JSON object per line, each carrying the nonce: {started}, then {test: -1,
 *   status, reason} if the program (or the test setup) did not load, else {loaded}; then per test
 *   {test, status: "pass" | "fail" | "error" | "timeout" | "value", reason?, value?}; then {done}.
 *   `value` (call mode) is the return value as JSON text; the grader compares it, so the expected
 *   outputs never enter the sandbox.
 * - The program's stdout goes to /dev/null (it is not part of these tests); stderr is kept.
 *
 * Trust: a record counts only with the nonce, which the runner read from stdin before the program
 * ran, so printing result-like lines, writing a result file, or exiting early (`sys.exit(0)`,
 * `os._exit(0)`, `process.exit(0)`) cannot forge a pass. A program that deliberately inspects the
 * runner's memory could; the verdicts that matter most for that (stdin/stdout, call-based values)
 * are therefore judged outside the program's process.
 */

/** The Python runner (CPython 3.8+). */
export const PYTHON_RUNNER = String.raw`
import json, os, signal, sys, traceback, types


class _Timeout(BaseException):
    pass


class _Unplain(Exception):
    pass


def _on_alarm(signum, frame):
    raise _Timeout()


def _describe(error, sources):
    text = type(error).__name__
    message = str(error)
    if message:
        text += ": " + message
    text = text[:300]
    for frame in reversed(traceback.extract_tb(error.__traceback__)):
        source = sources.get(frame.filename)
        if source is None:
            continue
        lines = source.splitlines()
        line = lines[frame.lineno - 1].strip() if 0 < (frame.lineno or 0) <= len(lines) else ""
        text += " (at %s:%s%s)" % (frame.filename, frame.lineno, ": " + line[:120] if line else "")
        break
    return text


def _plain(value, top):
    if top and isinstance(value, tuple):
        value = list(value)
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        return str(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, list):
        return [_plain(item, False) for item in value]
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise _Unplain("a dict with a %s key" % type(key).__name__)
            out[str(key)] = _plain(item, False)
        return out
    if type(value).__module__ == "numpy" and getattr(value, "shape", None) == ():
        return _plain(value.item(), False)
    raise _Unplain("a %s" % type(value).__name__)


def _main():
    nonce, _, spec_text = sys.stdin.buffer.read().decode("utf-8").partition("\n")
    spec = json.loads(spec_text)
    out = open(spec["result"], "w", encoding="utf-8")

    def report(**record):
        record["nonce"] = nonce
        out.write(json.dumps(record) + "\n")
        out.flush()

    report(started=True)
    devnull = os.open(os.devnull, os.O_WRONLY)
    sys.stdout.flush()
    os.dup2(devnull, 1)
    signal.signal(signal.SIGALRM, _on_alarm)
    limit = float(spec["timeout"])
    sources = {}

    def run(fn):
        try:
            signal.setitimer(signal.ITIMER_REAL, limit)
            try:
                value = fn()
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            return "pass", None, value
        except _Timeout:
            return "timeout", "timed out after %g s" % limit, None
        except AssertionError as error:
            return "fail", _describe(error, sources), None
        except MemoryError:
            return "error", "MemoryError: out of memory", None
        except SystemExit as error:
            return "error", "SystemExit(%r): the program exited" % (error.code,), None
        except BaseException as error:
            return "error", _describe(error, sources), None

    def load(name, source, namespace):
        sources[name] = source
        return run(lambda: exec(compile(source, name, "exec"), namespace))

    program_name = spec["program"]
    with open(program_name, encoding="utf-8") as handle:
        program = handle.read()
    module = types.ModuleType("solution")
    module.__file__ = os.path.abspath(program_name)
    sys.modules["solution"] = module
    namespace = module.__dict__
    status, reason, _ = load(program_name, program, namespace)
    if status == "pass" and spec.get("setup"):
        status, reason, _ = load("setup.py", spec["setup"], namespace)
        if status != "pass":
            reason = "the test setup failed: " + reason
    target = module
    if status == "pass" and spec["mode"] == "call" and "class Solution" in program:
        status, reason, target = run(lambda: namespace["Solution"]())
    if status != "pass":
        report(test=-1, status=status, reason=reason)
        report(done=True)
        return
    report(loaded=True)

    for index, test in enumerate(spec["tests"]):
        name = "test_%d.py" % index
        if spec["mode"] == "call":
            args = [json.loads(line) for line in test.split("\n")]
            status, reason, value = run(lambda: getattr(target, spec["fnName"])(*args))
            if status == "pass":
                try:
                    report(test=index, status="value", value=json.dumps(_plain(value, True)))
                    continue
                except (_Unplain, RecursionError, ValueError) as error:
                    status, reason = "fail", "returned %s, which no JSON output equals" % (
                        error if isinstance(error, _Unplain) else "a value JSON cannot hold")
        elif spec["mode"] == "check":
            def check():
                exec(compile(test, name, "exec"), namespace)
                if spec["entryPoint"] not in namespace:
                    raise NameError("the program defines no %s" % spec["entryPoint"])
                namespace["check"](namespace[spec["entryPoint"]])
            sources[name] = test
            status, reason, _ = run(check)
        else:
            status, reason, _ = load(name, test, namespace)
        record = {"test": index, "status": status}
        if reason:
            record["reason"] = reason
        report(**record)
        if status != "pass" and spec["stopOnFailure"]:
            break
    report(done=True)


try:
    _main()
except BaseException:
    traceback.print_exc()
    os._exit(70)
os._exit(0)
`;

/** The Node runner (CommonJS; Node 18+). Program and tests run in one vm context, each with a timeout. */
export const NODE_RUNNER = String.raw`"use strict";
const fs = require("node:fs");
const vm = require("node:vm");
const assert = require("node:assert");
const { Console } = require("node:console");

const input = fs.readFileSync(0, "utf8");
const newline = input.indexOf("\n");
const nonce = input.slice(0, newline);
const spec = JSON.parse(input.slice(newline + 1));
const out = fs.openSync(spec.result, "w");
const report = (record) => fs.writeSync(out, JSON.stringify({ ...record, nonce }) + "\n");
report({ started: true });

function describe(error) {
  if (error === null || typeof error !== "object") return "threw " + String(error).slice(0, 200);
  let text = (error.name || "Error") + (error.message ? ": " + error.message : "");
  text = text.slice(0, 300);
  const at = /((?:solution|setup|test_\d+)\.js):(\d+)/.exec(String(error.stack || ""));
  return at ? text + " (at " + at[1] + ":" + at[2] + ")" : text;
}

const limitMs = Math.max(1, Math.round(spec.timeout * 1000));
const quiet = new Console({ stdout: fs.createWriteStream("/dev/null"), stderr: process.stderr });
const moduleObject = { exports: {} };
const context = vm.createContext({
  require, module: moduleObject, exports: moduleObject.exports, console: quiet, process, Buffer,
  setTimeout, clearTimeout, setInterval, clearInterval, setImmediate, clearImmediate,
  queueMicrotask, structuredClone, TextEncoder, TextDecoder, URL, URLSearchParams, assert,
});

async function run(source, name) {
  let timer;
  try {
    const value = vm.runInContext(source, context, { filename: name, timeout: limitMs });
    if (value !== null && typeof value === "object" && typeof value.then === "function") {
      const expired = new Promise((_, reject) => {
        timer = setTimeout(() => reject({ timeout: true }), limitMs);
      });
      return { status: "pass", value: await Promise.race([value, expired]) };
    }
    return { status: "pass", value };
  } catch (error) {
    if ((error && error.timeout) || (error && error.code === "ERR_SCRIPT_EXECUTION_TIMEOUT")) {
      return { status: "timeout", reason: "timed out after " + spec.timeout + " s" };
    }
    const failed = error && (error.code === "ERR_ASSERTION" || error.name === "AssertionError");
    return { status: failed ? "fail" : "error", reason: describe(error) };
  } finally {
    clearTimeout(timer);
  }
}

async function main() {
  const program = fs.readFileSync(spec.program, "utf8");
  let loaded = await run(program, spec.program);
  if (loaded.status === "pass" && spec.setup) {
    loaded = await run(spec.setup, "setup.js");
    if (loaded.status !== "pass") loaded.reason = "the test setup failed: " + loaded.reason;
  }
  let callee = spec.fnName;
  if (
    loaded.status === "pass" &&
    spec.mode === "call" &&
    vm.runInContext("typeof Solution", context) === "function"
  ) {
    loaded = await run("globalThis.__rllm_target = new Solution()", "solution.js");
    callee = "__rllm_target." + spec.fnName;
  }
  if (loaded.status !== "pass") {
    report({ test: -1, status: loaded.status, reason: loaded.reason });
    report({ done: true });
    return;
  }
  report({ loaded: true });
  for (const [index, test] of spec.tests.entries()) {
    const name = "test_" + index + ".js";
    let result;
    if (spec.mode === "call") {
      context.__rllm_input = test;
      result = await run(
        callee + "(...__rllm_input.split('\\n').map((l) => JSON.parse(l)))",
        name,
      );
      if (result.status === "pass") {
        let text;
        try { text = JSON.stringify(result.value); } catch { text = undefined; }
        if (typeof text === "string") {
          report({ test: index, status: "value", value: text });
          continue;
        }
        result = { status: "fail", reason: "returned a value JSON cannot hold" };
      }
    } else if (spec.mode === "check") {
      result = await run(test, name);
      if (result.status === "pass") {
        result = await run("check(" + spec.entryPoint + ")", name);
      }
    } else {
      result = await run(test, name);
    }
    report({ test: index, status: result.status, ...(result.reason ? { reason: result.reason } : {}) });
    if (result.status !== "pass" && spec.stopOnFailure) break;
  }
  report({ done: true });
}

main().then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(String(error && error.stack) + "\n");
    process.exit(70);
  },
);
`;
