import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import type { RolloutConfig } from "../sdk/index.js";
import { getBenchmark } from "./catalog.js";
import { defaultRollout } from "./defaults.js";
import { loadBenchmark } from "./load.js";

const dataDir = fileURLToPath(new URL("./fixtures/data/", import.meta.url));

/** Runs a benchmark's default agent on its first fixture task against a server that records the request. */
async function sentMessages(name: string, split?: string): Promise<unknown> {
  const [task] = await loadBenchmark(name, { dataDir, split, maxExamples: 1 });
  const bodies: unknown[] = [];
  const server = createServer((req, res) => {
    let text = "";
    req.on("data", (chunk) => {
      text += chunk;
    });
    req.on("end", () => {
      bodies.push(JSON.parse(text));
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  try {
    const config = {
      baseURL: url,
      apiKey: "k",
      model: "m",
      sessionId: "s",
      signal: new AbortController().signal,
    };
    await defaultRollout(getBenchmark(name)).run(task!, config as RolloutConfig);
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  assert.equal(bodies.length, 1);
  return (bodies[0] as { messages: unknown }).messages;
}

test("the default agent sends each benchmark's own conversation", async () => {
  const math = (await sentMessages("hmmt")) as { role: string }[];
  assert.deepEqual(
    math.map((m) => m.role),
    ["system", "user"],
  );
  // IFEval's prompt goes alone: an empty system prompt is not sent.
  assert.deepEqual(await sentMessages("ifeval"), [
    {
      role: "user",
      content:
        "Write a short note to a neighbour asking to borrow a ladder. Do not use any commas in your reply.",
    },
  ]);
  // MultiChallenge: the prior turns as they are, ending with the user's.
  assert.deepEqual(await sentMessages("multichallenge"), [
    { role: "user", content: "For the rest of our chat, answer in exactly two sentences." },
    { role: "assistant", content: "Understood. I will keep every answer to two sentences." },
    { role: "user", content: "What causes tides on Earth?" },
  ]);
  const bfcl = (await sentMessages("bfcl", "simple")) as { role: string; content: string }[];
  assert.deepEqual(
    bfcl.map((m) => m.role),
    ["system", "user"],
  );
  assert.match(bfcl[0]!.content, /"name": "get_weather"/);
});
