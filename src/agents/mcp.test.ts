/**
 * MCP tools in the tool agent, on the real path: a real MCP server (the SDK's McpServer,
 * src/testing/mcp-server.ts) over stdio and over Streamable HTTP on loopback; the engine runs the
 * tool agent against an in-process gateway in front of the scripted fake upstream, whose model
 * calls the MCP tool named in the task and then submits the tool's answer, so each answer below
 * is what reached the model's next prompt. Errors: a server that cannot start, dies at start,
 * never answers, dies during a call, refuses the token; a tool error, a timeout, an unknown tool,
 * malformed arguments; name collisions and their prefix; the options' validation.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { type InProcessGateway, runRollouts } from "../engine/index.js";
import { counting, startAgentStack, stopAgentStack } from "../testing/agent-stack.js";
import type { FakeCompletion, FakeRequestInfo, FakeUpstream } from "../testing/fake-upstream.js";
import {
  type McpHttpServer,
  startMcpHttpServer,
  stdioServerCommand,
} from "../testing/mcp-server.js";
import type { ChatMessage, Episode, Task } from "../types/index.js";
import type { McpServerOptions } from "./mcp.js";
import { type ToolAgent, toolAgent } from "./tool-agent.js";

/**
 * The model: the instruction `call NAME ARGS` calls tool NAME with ARGS (raw JSON text) first,
 * then submits that call's answer.
 */
function respond(req: FakeRequestInfo): FakeCompletion | string {
  const messages = req.messages ?? [];
  const user = String(messages.find((m) => m.role === "user")?.content ?? "");
  const m = /^call (\S+) (.*)$/s.exec(user);
  if (!m) return `no script for ${JSON.stringify(user)}`;
  const answers = messages.filter((x) => x.role === "tool").map((x) => String(x.content));
  if (answers.length === 0) return { text: "", toolCalls: [{ name: m[1]!, arguments: m[2]! }] };
  return { text: "", toolCalls: [{ name: "submit", arguments: { answer: answers[0]! } }] };
}

const call = (id: string, name: string, args: unknown = {}): Task => ({
  id,
  data: { instruction: `call ${name} ${typeof args === "string" ? args : JSON.stringify(args)}` },
});

const counters = (ep: Episode) => ep.info!.toolAgent as Record<string, number | string>;

const calc = (extra: Partial<McpServerOptions> = {}, also: string[] = []): McpServerOptions => ({
  name: "calc",
  ...stdioServerCommand(also),
  connectTimeoutS: 30,
  ...extra,
});

describe("MCP tools in the tool agent", () => {
  let up: FakeUpstream;
  let gw: InProcessGateway;
  let http: McpHttpServer;
  const agents: ToolAgent[] = [];
  before(async () => {
    ({ up, gw } = await startAgentStack(respond));
    http = await startMcpHttpServer({ token: "s3cret" });
  });
  after(async () => {
    await Promise.all(agents.map((a) => a.close()));
    await http.close();
    await stopAgentStack({ up, gw });
  });

  function agent(mcpServers: McpServerOptions[], sandboxes = counting()) {
    const a = toolAgent({ mcpServers, sandboxes });
    agents.push(a);
    return { agent: a, sandboxes };
  }

  async function run(a: ToolAgent, tasks: Task[], concurrency = 1) {
    const r = await runRollouts(tasks, {
      gateway: gw,
      rollout: a,
      model: "m",
      infraRetries: 0,
      concurrency,
    });
    return r.episodes;
  }

  test("stdio: the model is offered the server's tools, calls one, and reads its answer", async () => {
    const { agent: a, sandboxes } = agent([
      calc({ env: { RLLM_MCP_TEST: "from env" }, callTimeoutS: 10 }),
    ]);
    const eps = await run(a, [
      call("add", "add", { a: 2, b: 3 }),
      call("parts", "parts"),
      call("structured", "structured"),
      call("nothing", "nothing"),
      call("env", "env", { name: "RLLM_MCP_TEST" }),
      call("pid1", "pid"),
      call("pid2", "pid"),
    ]);
    assert.deepEqual(
      eps.map((e) => [e.terminationReason, e.info?.answer]),
      [
        ["env_done", "5"],
        [
          "env_done",
          "before\n[image: image/png, 3 bytes]\n[resource link: file:///a.txt]\nembedded text\nafter",
        ],
        ["env_done", '{"sum":3}'],
        ["env_done", "(no output)"],
        ["env_done", "from env"],
        ["env_done", eps[5]!.info?.answer],
        ["env_done", eps[5]!.info?.answer],
      ],
    );
    assert.match(String(eps[5]!.info?.answer), /^\d+$/, "one server process for every episode");
    assert.deepEqual([sandboxes.acquired, sandboxes.released], [7, 7]);

    // the tool's answer is the tool message of the next prompt, joined to the trace
    const steps = eps[0]!.trajectories[0]!.steps;
    assert.equal(steps.length, 2);
    const tools = (m: ChatMessage[]) => m.filter((x) => x.role === "tool").map((x) => x.content);
    assert.deepEqual(tools(steps[1]!.messages), ["5"]);
    assert.deepEqual(
      steps.map((s) => s.response?.toolCalls?.map((c) => c.function.name)),
      [["add"], ["submit"]],
    );
    assert.equal(counters(eps[0]!).toolCalls, 2);
    // offered after the built-ins, with the server's JSON schema (no $schema key)
    const sent = up.requests.at(-1)!.body as {
      tools: { function: { name: string; description?: string; parameters: unknown } }[];
    };
    assert.deepEqual(
      sent.tools.map((t) => t.function.name),
      [
        "bash",
        "read_file",
        "write_file",
        "submit",
        "add",
        "parts",
        "structured",
        "nothing",
        "fail",
        "sleep",
        "env",
        "pid",
      ].concat(["exit"]),
    );
    assert.deepEqual(sent.tools[4]!.function, {
      name: "add",
      description: "Add two numbers.",
      parameters: {
        type: "object",
        properties: {
          a: { type: "number", description: "first" },
          b: { type: "number", description: "second" },
        },
        required: ["a", "b"],
      },
    });

    // close() ends the stdio server
    const pid = Number(eps[5]!.info?.answer);
    assert.equal(alive(pid), true);
    await a.close();
    for (let i = 0; i < 100 && alive(pid); i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(alive(pid), false, "the server process ended on close()");
    // a later episode connects again
    const [again] = await run(a, [call("add2", "add", { a: 1, b: 1 })]);
    assert.equal(again!.info?.answer, "2");
  });

  test("Streamable HTTP: headers go with every request; a wrong token is an error naming the server", async () => {
    http.requests.length = 0;
    const { agent: a } = agent([
      { name: "web", url: http.url, headers: { authorization: "Bearer s3cret" }, prefix: "web_" },
    ]);
    const eps = await run(a, [
      call("h1", "web_add", { a: 20, b: 22 }),
      call("h2", "web_fail", { reason: "over http" }),
    ]);
    assert.deepEqual(
      eps.map((e) => e.info?.answer),
      ["42", "error: over http"],
    );
    assert.ok(http.requests.length >= 4, "initialize, initialized, tools/list, the calls");
    assert.ok(http.requests.every((r) => r.authorization === "Bearer s3cret"));

    const { agent: wrong, sandboxes } = agent([
      { name: "web", url: http.url, headers: { authorization: "Bearer nope" } },
    ]);
    const [ep] = await run(wrong, [call("h3", "add", { a: 1, b: 2 })]);
    assert.equal(ep!.terminationReason, "error");
    assert.equal(ep!.infraFailed, false);
    assert.match(
      String(ep!.info?.error),
      /^MCP server "web" \(http:\/\/127\.0\.0\.1:\d+\/mcp\) failed while connecting: HTTP 401: .*bad token/,
    );
    assert.equal(sandboxes.acquired, 0, "no sandbox is taken for an episode that cannot start");
  });

  test("a tool error, a timeout, an unknown tool and malformed arguments are the model's answers", async () => {
    const { agent: a } = agent([calc({ callTimeoutS: 0.5 })]);
    const t0 = Date.now();
    const eps = await run(a, [
      call("e1", "fail", { reason: "disk full" }),
      call("e2", "sleep", { ms: 5000 }),
      call("e3", "nope"),
      call("e4", "add", "[1, 2]"),
      call("e5", "add", "{oops"),
      call("e6", "add", { a: "x", b: 1 }),
    ]);
    assert.ok(Date.now() - t0 < 15_000, "the sleep was not waited for");
    assert.ok(eps.every((e) => e.terminationReason === "env_done"));
    const answers = eps.map((e) => String(e.info?.answer));
    assert.equal(answers[0], "error: disk full");
    assert.equal(
      answers[1],
      'error: the MCP tool sleep (server "calc") did not answer within 0.5 s (callTimeoutS)',
    );
    assert.equal(
      answers[2],
      'error: unknown tool "nope"; the tools are bash, read_file, write_file, submit, add, parts, structured, nothing, fail, sleep, env, pid, exit',
    );
    assert.equal(answers[3], "error: the arguments of add must be a JSON object");
    assert.match(
      answers[4]!,
      /^error: the arguments of add are not valid JSON \(.+\); send a JSON object$/,
    );
    assert.match(
      answers[5]!,
      /^error: MCP error -32602: Input validation error: .*expected number/,
    );
    assert.deepEqual(
      eps.map((e) => [counters(e).failedToolCalls, counters(e).invalidToolCalls]),
      [
        [1, 0],
        [1, 0],
        [0, 1],
        [0, 1],
        [0, 1],
        [1, 0],
      ],
    );
  });

  test("a server that cannot start, dies at start or never answers ends the episode with an error naming it", async () => {
    const cases: [McpServerOptions, RegExp][] = [
      [
        { name: "ghost", command: "/nonexistent/mcp-server" },
        /^MCP server "ghost" \(\/nonexistent\/mcp-server\) could not start while connecting: spawn \/nonexistent\/mcp-server ENOENT$/,
      ],
      [
        { name: "broken", command: "sh", args: ["-c", "echo bad config >&2; exit 1"] },
        /^MCP server "broken" \(sh -c echo bad config >&2; exit 1\) failed while connecting: .*Connection closed; its stderr ends: bad config$/,
      ],
      [
        { name: "mute", command: "sleep", args: ["30"], connectTimeoutS: 0.5 },
        /^MCP server "mute" \(sleep 30\) failed while connecting: no answer within 0\.5 s \(connectTimeoutS\)$/,
      ],
      [
        { name: "down", url: `http://127.0.0.1:${await closedPort()}/mcp` },
        /^MCP server "down" \(http:\/\/127\.0\.0\.1:\d+\/mcp\) failed while connecting: fetch failed \(ECONNREFUSED\)$/,
      ],
    ];
    for (const [server, error] of cases) {
      const { agent: a, sandboxes } = agent([server]);
      const [ep] = await run(a, [call("s", "add", { a: 1, b: 2 })]);
      assert.equal(ep!.terminationReason, "error", server.name);
      assert.equal(ep!.infraFailed, false);
      assert.match(String(ep!.info?.error), error);
      assert.equal(counters(ep!).endedBy, "error");
      assert.equal(sandboxes.acquired, 0);
    }
  });

  test("a server that dies during a call ends that episode; the next episode starts it again", async () => {
    const { agent: a, sandboxes } = agent([calc()]);
    const [died] = await run(a, [call("d1", "exit")]);
    assert.equal(died!.terminationReason, "error");
    assert.match(
      String(died!.info?.error),
      /^MCP server "calc" \(.*mcp-server\.ts\) closed the connection; its stderr ends: exiting on request$/,
    );
    assert.deepEqual([sandboxes.acquired, sandboxes.released], [1, 1]);
    const [next] = await run(a, [call("d2", "add", { a: 3, b: 4 })]);
    assert.equal(next!.info?.answer, "7");
  });

  test("names: a collision is an error naming both owners; a prefix resolves it", async () => {
    const { agent: builtin } = agent([calc({}, ["bash"])]);
    const [ep1] = await run(builtin, [call("n1", "add", { a: 1, b: 1 })]);
    assert.equal(ep1!.terminationReason, "error");
    assert.equal(
      ep1!.info?.error,
      'the tool name "bash" is offered by both the built-in tools and MCP server "calc"; set prefix on the server (mcpServers[].prefix) to tell them apart',
    );

    const web = { name: "web", url: http.url, headers: { authorization: "Bearer s3cret" } };
    const { agent: two } = agent([calc(), web]);
    const [ep2] = await run(two, [call("n2", "add", { a: 1, b: 1 })]);
    assert.equal(
      ep2!.info?.error,
      'the tool name "add" is offered by both MCP server "calc" and MCP server "web"; set prefix on the server (mcpServers[].prefix) to tell them apart',
    );

    const { agent: prefixed } = agent([calc({ prefix: "m_" }, ["bash"]), web]);
    const eps = await run(prefixed, [
      call("n3", "m_bash", { text: "echoed by the server" }),
      call("n4", "bash", { command: "echo from the sandbox" }),
      call("n5", "add", { a: 2, b: 2 }),
      call("n6", "m_add", { a: 3, b: 3 }),
    ]);
    assert.deepEqual(
      eps.map((e) => e.info?.answer),
      [
        "echoed by the server",
        "exit code: 0\n--- stdout ---\nfrom the sandbox\n\n--- stderr ---\n",
        "4",
        "6",
      ],
    );
  });

  test("a stdio server still open when the process exits is ended with it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "rllm-mcp-"));
    const script = join(dir, "exit-open.mts");
    const server = { name: "lingering", ...stdioServerCommand([], true) };
    writeFileSync(
      script,
      `import { McpServers, McpServersSchema } from ${JSON.stringify(new URL("./mcp.ts", import.meta.url).pathname)};
const mcp = new McpServers(McpServersSchema.parse([${JSON.stringify(server)}]));
const box = await mcp.toolbox(new AbortController().signal);
const ctx = { signal: new AbortController().signal, maxOutputChars: 100 };
const out = await box.run({ id: "1", type: "function", function: { name: "pid", arguments: "{}" } }, ctx as never);
process.stdout.write(out.content);
process.exit(0);
`,
    );
    const child = spawnSync(process.execPath, ["--import", "tsx", script], { encoding: "utf8" });
    rmSync(dir, { recursive: true, force: true });
    assert.equal(child.status, 0, child.stderr);
    const pid = Number(child.stdout);
    assert.ok(pid > 0, child.stdout);
    for (let i = 0; i < 100 && alive(pid); i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(alive(pid), false, "the lingering server was sent SIGTERM at exit");
  });

  test("the mcpServers option is validated, naming the entry and what to fix", () => {
    const bad = (mcpServers: unknown, message: RegExp) =>
      assert.throws(
        () => toolAgent({ mcpServers: mcpServers as McpServerOptions[] }),
        (err: Error) => err instanceof TypeError && message.test(err.message),
      );
    bad(
      [{ name: "x" }],
      /^toolAgent option mcpServers\.0: server "x": give either command \(a stdio server\) or url/,
    );
    bad(
      [{ name: "x", command: "a", url: "http://h/mcp" }],
      /^toolAgent option mcpServers\.0: server "x": give either command/,
    );
    bad([{ name: "x", url: "http://h/mcp", args: ["a"] }], /args and env are for a stdio server/);
    bad([{ name: "x", command: "a", headers: { a: "b" } }], /headers are for a Streamable HTTP/);
    bad([{ name: "x", url: "ftp://h/mcp" }], /^toolAgent option mcpServers\.0\.url: /);
    bad([{ name: "x", command: "a", prefix: "a.b" }], /mcpServers\.0\.prefix: a prefix is letters/);
    bad([{ name: "x", command: "a", callTimeoutS: 0 }], /mcpServers\.0\.callTimeoutS: /);
    bad([{ name: "x", command: "a", colour: "red" }], /mcpServers\.0: Unrecognized key: "colour"/);
    bad(
      [
        { name: "x", command: "a" },
        { name: "x", url: "http://h/mcp" },
      ],
      /^toolAgent option mcpServers: two servers are named "x"$/,
    );
  });
});

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const { port } = srv.address() as AddressInfo;
  await new Promise((r) => srv.close(r));
  return port;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
