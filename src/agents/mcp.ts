/**
 * MCP tools for the built-in tool agent: the tools of MCP servers (the official TypeScript SDK's
 * Client) offered to the model beside bash, read_file, write_file and submit.
 *
 *   toolAgent({ mcpServers: [
 *     { name: "calc", command: "node", args: ["calc-server.js"], env: { CALC_MODE: "exact" } },
 *     { name: "docs", url: "http://127.0.0.1:8931/mcp", headers: { authorization: "Bearer …" } },
 *   ] })
 *
 * A server is a stdio command (`command`, `args`, `env`) or a Streamable HTTP endpoint (`url`,
 * `headers`); `name` is how errors and collisions name it.
 *
 * Edge cases, decided once:
 * - Lifecycle: one connection per server per agent, opened by the first episode that needs it and
 *   shared by all the agent's episodes, concurrent ones included (the SDK multiplexes requests by
 *   JSON-RPC id). The tools are listed once per connection (a server's list_changed notification
 *   is not followed). `agent.close()` closes the connections (a stdio server gets its stdin
 *   closed, then SIGTERM, then SIGKILL: the SDK's order); at process exit a stdio server still
 *   open is sent SIGTERM. A connection that failed or ended is opened again by the next episode.
 * - Where servers run: beside the agent, on the host, NOT in the episode's sandbox. A stdio
 *   server is a host process with the agent's rights; its environment is the SDK's default
 *   (HOME, LOGNAME, PATH, SHELL, TERM, USER) plus `env`.
 * - Names: a tool is offered under the name its server gives it, with the server's `prefix`
 *   before it when set. A name offered twice (by two servers, or by a server and a built-in
 *   tool) is an error of the episode naming the tool and both owners, and saying to set `prefix`:
 *   names are never changed silently, so the model sees what the server's author chose.
 * - A call: its arguments must be a JSON object (else `invalid`, as for a built-in tool); the
 *   server checks them against its inputSchema. The answer: the result's text parts joined by
 *   newlines, other parts as a bracketed note (image/audio: type and size; a resource link: its
 *   URI; an embedded resource: its text, or a note for a blob); no content but structuredContent:
 *   its JSON; nothing at all: "(no output)". Clipped to maxOutputChars like a command's output.
 *   `isError: true`, or a JSON-RPC error answer (e.g. the server's "tool not found"), is a
 *   `failed` outcome whose text starts "error: ".
 * - Timeouts: `connectTimeoutS` bounds each request of connecting (initialize, tools/list; a
 *   stdio server's start-up counts), and past it the episode ends with an error; `callTimeoutS`
 *   bounds one tools/call, and a call past it is a `failed` answer saying so (the SDK sends the
 *   server notifications/cancelled). The episode's own deadline or the run's abort cancels a
 *   running call.
 * - A server that cannot be started or reached, or that closes its connection (dies) during a
 *   call, is thrown on: the episode ends with terminationReason "error" and `info.error` naming
 *   the server (with the tail of a stdio server's stderr).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  type ContentBlock,
  ErrorCode,
  McpError,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { ToolCall } from "../types/index.js";
import {
  builtinToolbox,
  clip,
  invalid,
  parseArguments,
  runToolCall,
  TOOLS,
  type Toolbox,
  type ToolContext,
  type ToolOutcome,
  type ToolSpec,
} from "./tools.js";

const McpServerFields = z.strictObject({
  /** Names the server in errors and collisions. */
  name: z.string().min(1),
  /** stdio: the program to start (looked up on PATH), with `args` and extra `env`. */
  command: z.string().min(1).optional(),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  /** Streamable HTTP: the endpoint, with `headers` on every request (e.g. authorization). */
  url: z.url({ protocol: /^https?$/ }).optional(),
  headers: z.record(z.string(), z.string()).optional(),
  /** Put before each of the server's tool names (resolves a collision). */
  prefix: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/, "a prefix is letters, digits, _ and - (a function name's alphabet)")
    .optional(),
  /** Seconds to start or reach the server, initialize it and list its tools. */
  connectTimeoutS: z.number().positive().default(60),
  /** Seconds one tool call may take. */
  callTimeoutS: z.number().positive().default(60),
});

export const McpServerOptionsSchema = McpServerFields.superRefine((s, ctx) => {
  const say = (message: string) => ctx.addIssue({ code: "custom", message });
  if ((s.command === undefined) === (s.url === undefined))
    say(
      `server "${s.name}": give either command (a stdio server) or url (a Streamable HTTP server)`,
    );
  if (s.url !== undefined && (s.args !== undefined || s.env !== undefined))
    say(`server "${s.name}": args and env are for a stdio server (command), not a url`);
  if (s.command !== undefined && s.headers !== undefined)
    say(`server "${s.name}": headers are for a Streamable HTTP server (url), not a command`);
});
export type McpServerOptions = z.input<typeof McpServerOptionsSchema>;
export type McpServerSettings = z.infer<typeof McpServerOptionsSchema>;

export const McpServersSchema = z.array(McpServerOptionsSchema).superRefine((servers, ctx) => {
  const seen = new Set<string>();
  for (const s of servers) {
    if (seen.has(s.name))
      ctx.addIssue({ code: "custom", message: `two servers are named "${s.name}"` });
    seen.add(s.name);
  }
});

const CLIENT_INFO = { name: "rllm-tool-agent", version: "1.0.0" };
const STDERR_TAIL = 2000;

/** Stdio transports still open, sent SIGTERM when the process exits. */
const openStdio = new Set<StdioClientTransport>();
let exitHook = false;
function track(t: StdioClientTransport): void {
  openStdio.add(t);
  if (exitHook) return;
  exitHook = true;
  process.once("exit", () => {
    for (const s of openStdio) {
      try {
        if (s.pid) process.kill(s.pid, "SIGTERM");
      } catch {
        // already gone
      }
    }
  });
}

/** One connected server: its client, its tools, and why it ended (once it has). */
class Connection {
  ended: string | undefined;
  private constructor(
    readonly server: McpServerSettings,
    private readonly client: Client,
    private readonly stdio: StdioClientTransport | undefined,
    /** The tail of a stdio server's stderr. */
    private readonly log: { stderr: string },
    readonly tools: Tool[],
  ) {}

  /** Starts or reaches the server, initializes and lists its tools; throws naming the server. */
  static async open(s: McpServerSettings, onEnd: (c: Connection) => void): Promise<Connection> {
    const client = new Client(CLIENT_INFO);
    const log = { stderr: "" };
    const stdio = s.command
      ? new StdioClientTransport({
          command: s.command,
          args: s.args ?? [],
          env: s.env ?? {},
          stderr: "pipe",
        })
      : undefined;
    stdio?.stderr?.on("data", (chunk: Buffer) => {
      log.stderr = (log.stderr + chunk.toString()).slice(-STDERR_TAIL);
    });
    const transport =
      stdio ??
      new StreamableHTTPClientTransport(new URL(s.url!), { requestInit: { headers: s.headers } });
    const options = { timeout: s.connectTimeoutS * 1000 };
    if (stdio) track(stdio);
    try {
      await client.connect(transport, options);
      const tools: Tool[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor ? { cursor } : {}, options);
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor);
      const conn = new Connection(s, client, stdio, log, tools);
      client.onclose = () => {
        conn.ended ??= "closed the connection";
        if (stdio) openStdio.delete(stdio);
        onEnd(conn);
      };
      return conn;
    } catch (err) {
      if (stdio) openStdio.delete(stdio);
      await client.close().catch(() => {});
      await new Promise((r) => setImmediate(r)); // the last of its stderr
      const doing =
        err instanceof Error && /ENOENT|EACCES/.test(err.message) ? "could not start" : "failed";
      throw new Error(
        `${describe(s)} ${doing} while connecting: ${reason(err, s)}${tail(log.stderr)}`,
        { cause: err },
      );
    }
  }

  /** One tools/call; a dead server is thrown on, anything the server answers is an outcome. */
  async call(
    tool: string,
    args: Record<string, unknown>,
    ctx: ToolContext,
    offeredAs: string,
  ): Promise<ToolOutcome> {
    if (this.ended)
      throw new Error(`${describe(this.server)} ${this.ended}${tail(this.log.stderr)}`);
    let result: Awaited<ReturnType<Client["callTool"]>>;
    try {
      result = await this.client.callTool({ name: tool, arguments: args }, undefined, {
        timeout: this.server.callTimeoutS * 1000,
        signal: ctx.signal,
      });
    } catch (err) {
      if (ctx.signal.aborted) throw err; // the episode's deadline or the run's abort
      if (err instanceof McpError && err.code === ErrorCode.RequestTimeout)
        return {
          kind: "failed",
          content: `error: ${offeredAs} did not answer within ${this.server.callTimeoutS} s (callTimeoutS)`,
        };
      if (err instanceof McpError && err.code !== ErrorCode.ConnectionClosed)
        return { kind: "failed", content: `error: ${err.message}` };
      this.ended ??= `failed during a call of ${tool}: ${reason(err, this.server)}`;
      await this.close();
      throw new Error(`${describe(this.server)} ${this.ended}${tail(this.log.stderr)}`, {
        cause: err,
      });
    }
    const text = clip(resultText(result), ctx.maxOutputChars, false);
    return result.isError
      ? { kind: "failed", content: `error: ${text}` }
      : { kind: "ok", content: text };
  }

  async close(): Promise<void> {
    this.ended ??= "was closed";
    if (this.stdio) openStdio.delete(this.stdio);
    await this.client.close().catch(() => {});
  }
}

/** The MCP servers of one agent: their connections, and each episode's toolbox over them. */
export class McpServers {
  private readonly connections = new Map<string, Promise<Connection>>();
  private last: { connections: Connection[]; toolbox: Toolbox } | undefined;

  constructor(private readonly servers: readonly McpServerSettings[]) {}

  /**
   * The built-in tools and every server's tools, connecting any server not connected now.
   * Throws on a server that cannot be had and on a name offered twice; `signal` stops the wait
   * (a connect in progress goes on for the next episode).
   */
  async toolbox(signal: AbortSignal): Promise<Toolbox> {
    const connections = await abortable(
      Promise.all(this.servers.map((s) => this.connection(s))),
      signal,
    );
    const last = this.last;
    if (last && connections.every((c, i) => c === last.connections[i])) return last.toolbox;
    const toolbox = combine(connections);
    this.last = { connections, toolbox };
    return toolbox;
  }

  /** Closes every connection (stdio servers end); a later episode connects again. */
  async close(): Promise<void> {
    const open = [...this.connections.values()];
    this.connections.clear();
    this.last = undefined;
    await Promise.all(open.map((p) => p.then((c) => c.close()).catch(() => {})));
  }

  private connection(s: McpServerSettings): Promise<Connection> {
    const current = this.connections.get(s.name);
    if (current) return current;
    const forget = () => {
      if (this.connections.get(s.name) === made) this.connections.delete(s.name);
    };
    const made = Connection.open(s, forget);
    this.connections.set(s.name, made);
    made.catch(forget); // a failed connect is tried again by the next episode
    return made;
  }
}

/** The toolbox over the built-ins and these connections' tools; a name offered twice throws. */
function combine(connections: Connection[]): Toolbox {
  const owner = new Map<string, string>(TOOLS.map((t) => [t.name, "the built-in tools"]));
  const entries = new Map<string, { connection: Connection; tool: Tool }>();
  const specs: ToolSpec[] = [...builtinToolbox.specs];
  for (const connection of connections) {
    const s = connection.server;
    for (const tool of connection.tools) {
      const name = `${s.prefix ?? ""}${tool.name}`;
      const other = owner.get(name);
      if (other !== undefined)
        throw new Error(
          `the tool name "${name}" is offered by both ${other} and MCP server "${s.name}"; set prefix on the server (mcpServers[].prefix) to tell them apart`,
        );
      owner.set(name, `MCP server "${s.name}"`);
      entries.set(name, { connection, tool });
      const { $schema: _, ...parameters } = tool.inputSchema;
      specs.push({
        type: "function",
        function: {
          name,
          ...(tool.description ? { description: tool.description } : {}),
          parameters,
        },
      });
    }
  }
  const offered = [...owner.keys()];
  return {
    specs,
    async run(call: ToolCall, ctx: ToolContext): Promise<ToolOutcome> {
      const entry = entries.get(call.function.name);
      if (!entry) return runToolCall(call, ctx, offered);
      const args = parseArguments(call);
      if (!args.ok) return args.outcome;
      if (typeof args.value !== "object" || args.value === null || Array.isArray(args.value))
        return invalid(`the arguments of ${call.function.name} must be a JSON object`);
      const offeredAs = `the MCP tool ${call.function.name} (server "${entry.connection.server.name}")`;
      return entry.connection.call(
        entry.tool.name,
        args.value as Record<string, unknown>,
        ctx,
        offeredAs,
      );
    },
  };
}

function abortable<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const stop = () => reject(signal.reason);
    signal.addEventListener("abort", stop, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener("abort", stop));
  });
}

/** A tool result as the model reads it (see the header). */
function resultText(result: Awaited<ReturnType<Client["callTool"]>>): string {
  if ("toolResult" in result) return JSON.stringify(result.toolResult); // protocol 2024-10-07
  const content = (result.content ?? []) as ContentBlock[];
  if (content.length) return content.map(partText).join("\n");
  if (result.structuredContent !== undefined) return JSON.stringify(result.structuredContent);
  return "(no output)";
}

function partText(p: ContentBlock): string {
  switch (p.type) {
    case "text":
      return p.text;
    case "image":
    case "audio":
      return `[${p.type}: ${p.mimeType}, ${Buffer.byteLength(p.data, "base64")} bytes]`;
    case "resource_link":
      return `[resource link: ${p.uri}]`;
    case "resource":
      return "text" in p.resource
        ? String(p.resource.text)
        : `[resource: ${p.resource.uri}, ${p.resource.mimeType ?? "binary"}, ${Buffer.byteLength(String(p.resource.blob), "base64")} bytes]`;
  }
}

function describe(s: McpServerSettings): string {
  const where = s.command ? [s.command, ...(s.args ?? [])].join(" ") : s.url;
  return `MCP server "${s.name}" (${where})`;
}

/** An error's message with its cause's (fetch's "fetch failed" says little on its own). */
function reason(err: unknown, s: McpServerSettings): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause as { code?: unknown; message?: unknown } | undefined;
  const code = typeof cause?.code === "string" ? cause.code : cause?.message;
  const timedOut = err instanceof McpError && err.code === ErrorCode.RequestTimeout;
  if (timedOut) return `no answer within ${s.connectTimeoutS} s (connectTimeoutS)`;
  if (err instanceof StreamableHTTPError && err.code !== undefined)
    return `HTTP ${err.code}: ${err.message}`;
  return typeof code === "string" ? `${err.message} (${code})` : err.message;
}

function tail(stderr: string): string {
  const t = stderr.trim();
  return t ? `; its stderr ends: ${t}` : "";
}
