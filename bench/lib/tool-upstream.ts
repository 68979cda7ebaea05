/**
 * The scripted model of bench/tool-agent.ts, in a process of its own: a fake vLLM upstream
 * (src/testing/fake-upstream.ts) whose every answer is a tool call, `turns` per episode:
 *
 *   node --import tsx bench/lib/tool-upstream.ts --port P [--turns 8] [--latency-ms 0]
 *
 * Answer k (0-based, counted by the assistant messages in the prompt) calls
 * bash {"command": "echo turn k"}; the last one (k = turns - 1) calls that and then
 * submit {"answer": "done"}, so an episode is exactly `turns` LLM calls and `turns` commands.
 * Readiness: GET /health (bench/lib/procs.ts spawnServer); stops on SIGTERM.
 */
import { parseArgs } from "node:util";
import { startFakeUpstream } from "../../src/testing/fake-upstream.js";

const { values } = parseArgs({
  options: {
    port: { type: "string", default: "0" },
    turns: { type: "string", default: "8" },
    "latency-ms": { type: "string", default: "0" },
  },
  strict: true,
});
const turns = Number(values.turns);

const upstream = await startFakeUpstream({
  kind: "vllm",
  port: Number(values.port),
  latencyMs: Number(values["latency-ms"]),
  record: false,
  respond(req) {
    const k = (req.messages ?? []).filter((m) => m.role === "assistant").length;
    const bash = { name: "bash", arguments: { command: `echo turn ${k}` } };
    if (k < turns - 1) return { text: "", toolCalls: [bash] };
    return { text: "", toolCalls: [bash, { name: "submit", arguments: { answer: "done" } }] };
  },
});
process.stdout.write(`READY ${upstream.url}\n`);
const stop = () => upstream.close().then(() => process.exit(0));
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
