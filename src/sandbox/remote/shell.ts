/**
 * One command of the protocol as a POSIX shell script, for a hosted sandbox whose API runs a shell
 * line and answers with its combined output once it ended (Daytona's `/process/execute`). The
 * script keeps what such an API loses, in a scratch dir of the sandbox:
 *
 *   <dir>/stdin   the command's stdin (uploaded before; /dev/null without one)
 *   <dir>/out     its stdout, cut at maxOutputBytes + 1 by `dd` (each read written at once, so a
 *                 kill loses nothing); <dir>/err likewise, through a FIFO
 *   <dir>/pid     the command's pid; <dir>/rc its `$?`; <dir>/cut: an output cap killed it
 *
 * and then prints a marker line and the collected result, base64 (binary-safe through a JSON
 * string). When the service killed the script (its timeout kills the process group) the same
 * collection runs as a script of its own (`collectScript`) and finds no rc.
 *
 * Decided once:
 * - argv runs through `sh -c '... exec "$@"'`: a program not found is `sh`'s "not found", 127.
 * - The image needs GNU coreutils and findutils (dd iflag=count_bytes, base64, find -printf): any
 *   Debian or Ubuntu based image, the default python:3.12-slim included.
 * - Output past maxOutputBytes: `dd` stops reading, and the command's process group (this script
 *   too: the service started it in a group of its own) is SIGKILLed, as an abort does
 *   (`killScript`); the result is then collected by `collectScript`.
 * - cpuSeconds, fileMb, openFiles are `ulimit -t/-f/-n` of the command (POSIX `sh`: -f counts
 *   512-byte blocks); their SIGXCPU and SIGXFSZ are named by spec.ts's attributeLimit.
 * - The status in <dir>/rc is the shell's `$?` (128+n for a signal n), read by spec.ts's statusOf.
 * - A cwd that is not a directory: the script prints a marker of its own instead of a result and
 *   runs nothing (`cwdMissing`).
 */
import { SandboxError } from "../types.js";

/** A word quoted for `sh`: single quotes, an embedded quote as '\''. */
export function shQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

export interface ShellCommand {
  /** The scratch dir of this exec (absolute). */
  dir: string;
  argv: string[];
  /** Working dir (absolute). */
  cwd: string;
  /** Whether `<dir>/stdin` was uploaded. */
  stdin: boolean;
  maxOutputBytes: number;
  ulimits: { cpuSeconds?: number; fileMb?: number; openFiles?: number };
}

const MARKER = "@@rllm-result@@";
/** Printed instead of a result when the cwd is not a directory (the command did not run). */
const NO_CWD = "@@rllm-no-cwd@@";

/** Kill the process group of the pid in "$d/pid" (the service's group: the script with it). */
const KILL_GROUP = `kill -KILL -"$(sed 's/.*) //' "/proc/$(cat "$d/pid")/stat" | cut -d' ' -f3)" 2>/dev/null`;

/** The script that kills the command of `dir` and everything of its run (an abort). */
export function killScript(dir: string): string {
  return [`d=${shQuote(dir)}`, KILL_GROUP].join("\n");
}

/** Whether a script's output holds the collected result (it was not killed before printing it). */
export function hasResult(text: string): boolean {
  return text.includes(`${MARKER}\n`);
}

/** Whether a script's output says the cwd is not a directory (the command did not run). */
export function cwdMissing(text: string): boolean {
  return text.includes(`${NO_CWD}\n`);
}

/** The script that runs the command and prints the collected result. */
export function runScript(c: ShellCommand): string {
  const keep = c.maxOutputBytes + 1;
  const limits = [
    // Hard limit a second above the soft one: the soft one's SIGXCPU names the limit (at equal
    // limits the kernel sends SIGKILL, which names nothing).
    c.ulimits.cpuSeconds !== undefined
      ? `ulimit -S -t ${Math.ceil(c.ulimits.cpuSeconds)} && ulimit -H -t ${Math.ceil(c.ulimits.cpuSeconds) + 1}`
      : "",
    c.ulimits.fileMb !== undefined ? `ulimit -f ${Math.ceil(c.ulimits.fileMb * 2048)}` : "",
    c.ulimits.openFiles !== undefined ? `ulimit -n ${Math.floor(c.ulimits.openFiles)}` : "",
  ].filter(Boolean);
  const inner = [
    `echo $$ > "$1/pid"; shift`,
    `cd -- ${shQuote(c.cwd)} || exit 1`,
    ...limits.map((l) => `${l} || exit 1`),
    `exec "$@"`,
  ].join("; ");
  // A cap reached: mark it and kill the command's process group (this script with it).
  const cap = (file: string) =>
    `dd of="$d/${file}" bs=65536 count=${keep} iflag=count_bytes status=none; if [ "$(wc -c < "$d/${file}")" -gt ${c.maxOutputBytes} ]; then : > "$d/cut"; ${KILL_GROUP}; fi`;
  return [
    `d=${shQuote(c.dir)}`,
    `if [ ! -d ${shQuote(c.cwd)} ]; then rm -rf "$d"; echo ${NO_CWD}; exit 0; fi`,
    `mkdir -p "$d" && rm -f "$d/e" && mkfifo "$d/e" || exit 1`,
    `{ ${cap("err")}; } < "$d/e" &`,
    `{ sh -c ${shQuote(inner)} sh "$d" ${c.argv.map(shQuote).join(" ")} < ${c.stdin ? `"$d/stdin"` : "/dev/null"} 2> "$d/e"; echo $? > "$d/rc"; } | { ${cap("out")}; }`,
    "wait",
    collectScript(c.dir),
  ].join("\n");
}

/** The script that prints what `runScript` left in `dir`, and removes it. */
export function collectScript(dir: string): string {
  return [
    "exec 2>/dev/null",
    `d=${shQuote(dir)}`,
    `echo ${MARKER}`,
    `cat "$d/rc" || echo`,
    `if [ -e "$d/cut" ]; then echo cut; else echo; fi`,
    `base64 < "$d/out"; echo -`,
    `base64 < "$d/err"; echo -`,
    `rm -rf "$d"`,
  ].join("\n");
}

export interface Collected {
  /** `$?` of the command; null when it was killed before it ended (the service's timeout). */
  status: number | null;
  /** An output cap killed it. */
  cut: boolean;
  stdout: Uint8Array;
  stderr: Uint8Array;
}

/** Parse what `collectScript` printed (after whatever else the script wrote). */
export function parseCollected(text: string): Collected {
  const at = text.lastIndexOf(`${MARKER}\n`);
  if (at < 0) {
    throw new SandboxError(
      `the sandbox's answer has no result marker: ${JSON.stringify(text.slice(0, 300))}`,
    );
  }
  const lines = text.slice(at + MARKER.length + 1).split("\n");
  const rc = lines[0]?.trim() ?? "";
  const outEnd = lines.indexOf("-", 2);
  const errEnd = lines.indexOf("-", outEnd + 1);
  if (outEnd < 0 || errEnd < 0) {
    throw new SandboxError(
      `the sandbox's result is cut short: ${JSON.stringify(text.slice(at, at + 300))}`,
    );
  }
  const b64 = (from: number, to: number) =>
    new Uint8Array(Buffer.from(lines.slice(from, to).join(""), "base64"));
  return {
    status: /^\d+$/.test(rc) ? Number(rc) : null,
    cut: lines[1]?.trim() === "cut",
    stdout: b64(2, outEnd),
    stderr: b64(outEnd + 1, errEnd),
  };
}
