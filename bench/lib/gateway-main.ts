/**
 * A bench-only gateway entry for experiments that the CLI cannot express: it builds the Gateway
 * from the library with a chosen store setup, to measure what each part of trace storage costs.
 *
 *   node --import tsx bench/lib/gateway-main.ts --port P --upstream URL --db FILE \
 *     [--store file|file-autocheckpoint|memory] [--durability normal|full]
 *
 * - file: what `rllm gateway --db FILE` does (WAL, synchronous=NORMAL, checkpoints on a worker
 *   thread; src/store/sqlite.ts).
 * - file-autocheckpoint: the same file with SQLite's automatic checkpoint instead (every 1,000 WAL
 *   pages, inside the commit that crosses the mark, fsyncs included, on the event loop): how the
 *   store checkpointed before the worker.
 * - memory: an in-memory store (":memory:"); the traces are not durable: an upper bound, not a
 *   configuration that meets "every trace in SQLite".
 *
 * Every store has its trace writes timed; the figures are printed as `STATS ...` lines on exit.
 * Prints `READY <url>`; closes on SIGINT / SIGTERM (so `--cpu-prof` is written).
 */
import { parseArgs } from "node:util";
import { Gateway } from "../../src/gateway/server.js";
import { Store } from "../../src/store/sqlite.js";

const { values } = parseArgs({
  options: {
    port: { type: "string", default: "0" },
    upstream: { type: "string" },
    db: { type: "string" },
    store: { type: "string", default: "file" },
    durability: { type: "string", default: "normal" },
  },
  strict: true,
});

if (!values.upstream || !values.db) {
  process.stderr.write("--upstream URL and --db FILE are required\n");
  process.exit(2);
}
const mode = values.store;
if (mode !== "file" && mode !== "file-autocheckpoint" && mode !== "memory") {
  process.stderr.write("--store must be file, file-autocheckpoint or memory\n");
  process.exit(2);
}

/**
 * The store, with its trace-writing methods timed (wall time per call, hrtime): `insertTrace` (the
 * part that runs in the request: serialising, and the insert itself when it is synchronous) and,
 * where the store has one, `flush` (a group commit), with the number of traces per flush. The
 * methods are wrapped at run time, so this works whether insertTrace is synchronous or not.
 */
const store = new Store({
  path: mode === "memory" ? ":memory:" : values.db,
  synchronous: values.durability === "full" ? "full" : "normal",
  checkpoints: mode === "file-autocheckpoint" ? "sqlite" : "worker",
});
const timings = { insertTrace: [] as number[], flush: [] as number[], perFlush: [] as number[] };
let sinceFlush = 0;
function timeMethod(name: "insertTrace" | "flush", onCall?: () => void): void {
  const target = store as unknown as Record<string, unknown>;
  const orig = target[name];
  if (typeof orig !== "function") return;
  target[name] = function (this: unknown, ...args: unknown[]) {
    onCall?.();
    const t0 = process.hrtime.bigint();
    try {
      return (orig as (...a: unknown[]) => unknown).apply(this, args);
    } finally {
      timings[name].push(Number(process.hrtime.bigint() - t0) / 1000);
    }
  };
}
timeMethod("insertTrace", () => sinceFlush++);
timeMethod("flush", () => {
  if (sinceFlush > 0) timings.perFlush.push(sinceFlush);
  sinceFlush = 0;
});

/** One line per measured quantity, read back by bench/gateway.ts from this process's output. */
function printStats(): void {
  const line = (name: string, xs: number[], unit: string, scale = 1) => {
    if (xs.length === 0) return;
    const sorted = Float64Array.from(xs).sort();
    const sum = xs.reduce((a, b) => a + b, 0);
    const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
    const f = (x: number) => (x / scale).toFixed(1);
    process.stdout.write(
      `STATS ${name}: ${xs.length} calls, mean ${f(sum / xs.length)} ${unit}, p50 ${f(q(0.5))} ${unit}, ` +
        `p99 ${f(q(0.99))} ${unit}, max ${f(sorted[sorted.length - 1]!)} ${unit}` +
        (unit === "µs" ? `, total ${(sum / 1000).toFixed(0)} ms\n` : "\n"),
    );
  };
  line("insertTrace (µs, in the request)", timings.insertTrace, "µs");
  line("flush (µs, one group commit)", timings.flush, "µs");
  line("traces per flush", timings.perFlush, "");
}

const gw = new Gateway({
  config: { port: Number(values.port), upstreams: [{ url: values.upstream, kind: "vllm" }] },
  store,
});
const url = await gw.listen();
process.stdout.write(`READY ${url} (store ${mode})\n`);

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  printStats();
  gw.close()
    .then(() => store.close())
    .then(
      () => process.exit(0),
      () => process.exit(1),
    );
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
