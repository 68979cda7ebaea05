/** A worker for worker-rpc tests: echoes, fails on request, transfers buffers, or dies. */
import { serveWorker, withTransfer, workerInput } from "../backends/local/worker-rpc.js";

const { greeting } = workerInput<{ greeting: string }>();

serveWorker({
  echo: (p: unknown) => ({ greeting, p }),
  fail: (p: { message: string }) => {
    throw new RangeError(p.message);
  },
  slow: async (p: { ms: number }) => {
    await new Promise((r) => setTimeout(r, p.ms));
    return p.ms;
  },
  buffer: (p: { n: number }) => {
    const a = new Float32Array(p.n).fill(1.5);
    return withTransfer(a, [a.buffer]);
  },
  die: () => process.exit(3),
});
