/**
 * Fault injection: the queue of faults a test pushes (`FakeUpstream.faults`), each consumed by
 * the next generation request it applies to.
 */
import type http from "node:http";
import type { FakeServer } from "./context.js";
import type { FakeFault } from "./types.js";
import { errorBody, sendJson } from "./wire.js";

/** Removes and returns the first queued fault that applies to `path`. */
export function takeFault(faults: FakeFault[], path: string): FakeFault | undefined {
  if (faults.length === 0) return undefined;
  const i = faults.findIndex((f) => f.path === undefined || f.path === path);
  if (i === -1) return undefined;
  return faults.splice(i, 1)[0];
}

/**
 * Answers with `fault` instead of (or around) the generation: `run(destroyAfter)` generates,
 * destroying the socket after that many SSE chunks when >= 0. A hanging response is added to
 * `pending`, which close() destroys.
 */
export function applyFault(
  s: FakeServer,
  fault: FakeFault,
  res: http.ServerResponse,
  pending: Set<http.ServerResponse>,
  run: (destroyAfter: number) => void,
): void {
  switch (fault.kind) {
    case "status":
      sendJson(
        res,
        fault.status,
        fault.body ?? errorBody(s, fault.status, `Injected fault: HTTP ${fault.status}`, "", null),
        fault.headers,
      );
      return;
    case "garbage": {
      const body = fault.body ?? "<html>502 Bad Gateway</html>\u0000{not json";
      res.writeHead(fault.status ?? 200, {
        "content-type": "application/json",
        "content-length": Buffer.byteLength(body),
      });
      res.end(body);
      return;
    }
    case "destroy":
      res.socket?.destroy();
      return;
    case "hang":
      pending.add(res);
      return;
    case "delay":
      setTimeout(() => run(-1), fault.ms);
      return;
    case "destroy-mid-stream":
      run(Math.max(0, fault.afterChunks));
      return;
  }
}

/** For a non-streaming response, "destroy mid-stream" sends the headers and half the body. */
export function truncatingRes(res: http.ServerResponse): http.ServerResponse {
  const origEnd = res.end.bind(res);
  const origWriteHead = res.writeHead.bind(res);
  let sse = false;
  res.writeHead = ((status: number, headers?: http.OutgoingHttpHeaders) => {
    sse = String(headers?.["content-type"] ?? "").startsWith("text/event-stream");
    return origWriteHead(status, headers);
  }) as typeof res.writeHead;
  res.end = ((chunk?: unknown) => {
    if (sse || typeof chunk !== "string") return origEnd();
    const half = chunk.slice(0, Math.max(1, Math.floor(chunk.length / 2)));
    res.write(half, () => setImmediate(() => res.socket?.destroy()));
    return res;
  }) as typeof res.end;
  return res;
}
