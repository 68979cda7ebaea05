/**
 * AdminClient: the server's own message from every envelope vLLM and SGLang answer in, retries
 * (then the last failure, with the number of tries), SGLang's 200 with `success: false`, a missing
 * route's hint, a server that is not there, and the bearer key.
 */
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { AdminCallError, AdminClient, serverMessage } from "./admin.js";

test("serverMessage reads each envelope", () => {
  assert.equal(serverMessage({ error: { message: "nested", type: "BadRequestError" } }), "nested");
  assert.equal(serverMessage({ object: "error", message: "flat" }), "flat");
  assert.equal(serverMessage({ detail: "Not Found" }), "Not Found");
  assert.equal(
    serverMessage({ detail: [{ msg: "field required" }] }),
    '[{"msg":"field required"}]',
  );
  assert.equal(
    serverMessage({ error: "Failed to pause generation: x" }),
    "Failed to pause generation: x",
  );
  assert.equal(serverMessage({ success: false, error_message: "LoRA exists" }), "LoRA exists");
  assert.equal(
    serverMessage({ success: false, message: "Failed to get weights" }),
    "Failed to get weights",
  );
  assert.equal(serverMessage("Cache flushed.\n"), "Cache flushed.");
  assert.equal(serverMessage(null), undefined);
});

let server: http.Server;
let url: string;
/** Answers to the next requests, in order: [status, body (object: JSON, string: text)]. */
const answers: [number, unknown][] = [];
const seen: { path: string; auth: string | undefined; body: string }[] = [];
before(async () => {
  server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => {
      body += c;
    });
    req.on("end", () => {
      seen.push({ path: req.url ?? "", auth: req.headers.authorization, body });
      const [status, b] = answers.shift() ?? [200, { ok: true }];
      const text = typeof b === "string" ? b : JSON.stringify(b);
      const send = () => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(text);
      };
      if (req.url === "/slow") setTimeout(send, 300);
      else send();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((r) => server.close(() => r())));

test("a failure is retried; the last one is the error, with the server's message and the tries", async () => {
  const c = new AdminClient(url, { retries: 2, timeoutMs: 5000, retryDelayMs: 1, apiKey: "k" });
  answers.push([500, { error: { message: "boom" } }], [200, "Success: loaded."]);
  seen.length = 0;
  const ok = await c.call("POST", "/v1/load_lora_adapter", { body: { lora_name: "a" } });
  assert.deepEqual(ok, { status: 200, body: "Success: loaded." });
  assert.equal(seen.length, 2);
  assert.equal(seen[0]!.auth, "Bearer k");
  assert.deepEqual(JSON.parse(seen[0]!.body), { lora_name: "a" });

  answers.push(
    [400, { success: false, error_message: "one" }],
    [400, { success: false, error_message: "two" }],
    [400, { success: false, error_message: "three" }],
  );
  await assert.rejects(
    c.call("POST", "/load_lora_adapter"),
    (e: Error) =>
      e instanceof AdminCallError &&
      e.status === 400 &&
      e.message === `POST ${url}/load_lora_adapter answered 400: three (3 tries)`,
  );
  // SGLang's older builds answer some failures with 200 and success false
  answers.push([200, { success: false, message: "Failed to get weights iterator" }]);
  const once = new AdminClient(url, { retries: 0, timeoutMs: 5000 });
  await assert.rejects(
    once.call("POST", "/update_weights_from_disk", { query: { a: "1" } }),
    /answered 200: Failed to get weights iterator \(1 try\)/,
  );
  assert.equal(seen.at(-1)!.path, "/update_weights_from_disk?a=1");
  // a route the server did not register says which flag registers it
  answers.push([404, { detail: "Not Found" }]);
  await assert.rejects(
    once.call("POST", "/pause", { hint: "start vLLM with VLLM_SERVER_DEV_MODE=1" }),
    /answered 404: Not Found — the route is missing: start vLLM with VLLM_SERVER_DEV_MODE=1/,
  );
  // an answer the caller marks final is not retried; others still are
  answers.push([500, { error: { message: "Weight transfer not configured." } }]);
  seen.length = 0;
  const final = (m: string) => /not configured/.test(m);
  await assert.rejects(
    c.call("POST", "/start_weight_update", { final }),
    /answered 500: Weight transfer not configured\. \(1 try\)/,
  );
  assert.equal(seen.length, 1);
  answers.push([500, { error: { message: "busy" } }]);
  await c.call("POST", "/start_weight_update", { final });
  assert.equal(seen.length, 3);
  await Promise.all([c.close(), once.close()]);
});

test("a server that is not there: the connection error, after the retries", async () => {
  const c = new AdminClient("http://127.0.0.1:1", { retries: 1, timeoutMs: 2000, retryDelayMs: 1 });
  await assert.rejects(
    c.call("GET", "/v1/models"),
    (e: Error) =>
      e instanceof AdminCallError &&
      e.status === null &&
      /^GET http:\/\/127\.0\.0\.1:1\/v1\/models: .*ECONNREFUSED.* \(2 tries\)$/.test(e.message),
  );
  await c.close();
});

test("a call that outlasts timeoutMs fails (and is retried)", async () => {
  const c = new AdminClient(url, { retries: 1, timeoutMs: 100, retryDelayMs: 1 });
  seen.length = 0;
  await assert.rejects(
    c.call("POST", "/slow"),
    /POST http:.*\/slow: no answer within 0\.1 s \(backend\.sampler\.timeoutS\) \(2 tries\)/,
  );
  assert.equal(seen.length, 2);
  await c.close();
});
