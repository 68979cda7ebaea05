import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { HttpError, openAIErrorBody, readJsonBody, sendJson } from "./http.js";

test("HttpError: type from the status unless given; details or (type, code); both dialects' bodies", () => {
  const plain = new HttpError(400, "bad");
  assert.equal(plain.type, "invalid_request_error");
  assert.equal(plain.code, null);
  assert.equal(plain.param, null);
  assert.equal(plain.name, "HttpError");
  assert.equal(new HttpError(503, "x").type, "upstream_error");
  assert.equal(new HttpError(418, "x").type, "server_error");
  const gw = new HttpError(413, "too big", "request_too_large", "c");
  assert.deepEqual([gw.type, gw.code, gw.param], ["request_too_large", "c", null]);
  const p = new HttpError(404, "no model", { param: "model" });
  assert.deepEqual(openAIErrorBody(p), {
    error: { message: "no model", type: "not_found_error", param: "model", code: null },
  });
  assert.deepEqual(openAIErrorBody(p, "vllm"), {
    error: { message: "no model", type: "NotFoundError", param: "model", code: 404 },
  });
  assert.equal(openAIErrorBody(new HttpError(400, "x"), "vllm").error.type, "BadRequestError");
  assert.equal(
    openAIErrorBody(new HttpError(503, "x"), "vllm").error.type,
    "ServiceUnavailableError",
  );
  assert.equal(openAIErrorBody(new HttpError(500, "x"), "vllm").error.type, "InternalServerError");
});

test("readJsonBody: JSON in, 400 for empty or malformed, the caller's 413 past the limit", async () => {
  const server = http.createServer((req, res) => {
    readJsonBody(req, { limit: 64, tooLarge: () => new HttpError(413, "over 64") }).then(
      (body) => sendJson(res, 200, { got: body }, ["x-extra", "1"]),
      (e: HttpError) => sendJson(res, e.status, openAIErrorBody(e)),
    );
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const post = async (body: string) => {
    const res = await fetch(url, { method: "POST", body });
    return {
      status: res.status,
      headers: res.headers,
      body: (await res.json()) as { error?: { message: string } },
    };
  };
  try {
    const ok = await post('{"a":1}');
    assert.equal(ok.status, 200);
    assert.deepEqual(ok.body, { got: { a: 1 } });
    assert.equal(ok.headers.get("x-extra"), "1");
    assert.equal(ok.headers.get("content-type"), "application/json");
    const empty = await post(" ");
    assert.equal(empty.status, 400);
    assert.match(empty.body.error!.message, /is empty/);
    const bad = await post("{nope");
    assert.equal(bad.status, 400);
    assert.match(bad.body.error!.message, /not valid JSON/);
    const big = await post(JSON.stringify({ s: "x".repeat(100) }));
    assert.equal(big.status, 413);
    assert.equal(big.body.error!.message, "over 64");
  } finally {
    await new Promise((r) => server.close(r));
  }
});
