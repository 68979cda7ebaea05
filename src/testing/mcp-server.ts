/**
 * A real MCP server for tests and benchmarks, built with the official SDK's McpServer
 * (registerTool), served over stdio when run as a program, or over Streamable HTTP on loopback
 * with startMcpHttpServer():
 *
 *   node --import tsx src/testing/mcp-server.ts [--also NAME]... [--linger]     # stdio
 *   const srv = await startMcpHttpServer({ token: "s3cret" })        # http://127.0.0.1:PORT/mcp
 *
 * Its tools:
 *   add {a, b}      the sum, as text
 *   parts {}        text, image, resource link, embedded resource, text (how parts are joined)
 *   structured {}   no content, structuredContent {sum: 3}
 *   nothing {}      no content at all
 *   fail {reason}   a tool error (isError: true) whose text is the reason
 *   sleep {ms}      answers "slept" after ms milliseconds (a call's timeout)
 *   env {name}      the server's environment variable `name` (a stdio server's `env`)
 *   pid {}          the server's process id (whether a stdio server was ended)
 *   exit {}         stdio only: writes "exiting on request" to stderr and exits with code 3 (a
 *                   server dying)
 *   NAME {text}     for each `--also NAME` / `also` entry: echoes text (name collisions)
 * `--linger`: the process stays alive after its stdin closes (a server that must be killed).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { pathToFileURL } from "node:url";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

/** The test server with its tools; `also` adds echo tools of those names. */
function testMcpServer(also: readonly string[] = [], stdio = false): McpServer {
  const server = new McpServer({ name: "rllm-test", version: "1.0.0" });
  const text = (t: string) => ({ content: [{ type: "text" as const, text: t }] });
  server.registerTool(
    "add",
    {
      description: "Add two numbers.",
      inputSchema: { a: z.number().describe("first"), b: z.number().describe("second") },
    },
    async ({ a, b }) => text(String(a + b)),
  );
  server.registerTool("parts", { description: "Five content parts." }, async () => ({
    content: [
      { type: "text", text: "before" },
      { type: "image", mimeType: "image/png", data: Buffer.from("png").toString("base64") },
      { type: "resource_link", uri: "file:///a.txt", name: "a.txt" },
      { type: "resource", resource: { uri: "file:///b.txt", text: "embedded text" } },
      { type: "text", text: "after" },
    ],
  }));
  server.registerTool("structured", { description: "Structured content only." }, async () => ({
    content: [],
    structuredContent: { sum: 3 },
  }));
  server.registerTool("nothing", { description: "No content." }, async () => ({ content: [] }));
  server.registerTool(
    "fail",
    { description: "Fail with the reason.", inputSchema: { reason: z.string() } },
    async ({ reason }) => ({ ...text(reason), isError: true }),
  );
  server.registerTool(
    "sleep",
    { description: "Answer after ms milliseconds.", inputSchema: { ms: z.number() } },
    async ({ ms }) => {
      await new Promise((r) => setTimeout(r, ms));
      return text("slept");
    },
  );
  server.registerTool(
    "env",
    { description: "An environment variable.", inputSchema: { name: z.string() } },
    async ({ name }) => text(process.env[name] ?? "(unset)"),
  );
  server.registerTool("pid", { description: "The process id." }, async () =>
    text(String(process.pid)),
  );
  if (stdio) {
    server.registerTool("exit", { description: "Exit with code 3." }, async () => {
      process.stderr.write("exiting on request\n");
      process.exit(3);
    });
  }
  for (const name of also) {
    server.registerTool(
      name,
      { description: `Echo (${name}).`, inputSchema: { text: z.string() } },
      async ({ text: t }) => text(t),
    );
  }
  return server;
}

export interface McpHttpServer {
  /** The MCP endpoint, http://127.0.0.1:PORT/mcp. */
  readonly url: string;
  /** Requests received (POSTs), with their authorization header. */
  readonly requests: { authorization: string | undefined }[];
  close(): Promise<void>;
}

/**
 * The test server over Streamable HTTP, stateless (a server and transport per POST, as the SDK's
 * simpleStatelessStreamableHttp example; GET and DELETE answer 405). With `token`, a POST without
 * `authorization: Bearer <token>` gets 401.
 */
export async function startMcpHttpServer(
  options: { token?: string; also?: readonly string[] } = {},
): Promise<McpHttpServer> {
  const requests: { authorization: string | undefined }[] = [];
  const http: Server = createServer(async (req, res) => {
    if (req.method !== "POST" || req.url !== "/mcp") {
      res.writeHead(405, { "content-type": "application/json" }).end(
        JSON.stringify({
          jsonrpc: "2.0",
          error: { code: -32000, message: "Method not allowed." },
          id: null,
        }),
      );
      return;
    }
    requests.push({ authorization: req.headers.authorization });
    if (options.token !== undefined && req.headers.authorization !== `Bearer ${options.token}`) {
      res.writeHead(401, { "content-type": "text/plain" }).end("bad token");
      return;
    }
    const server = testMcpServer(options.also);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

/** The command line that runs this file as a stdio server (for `mcpServers` entries). */
export function stdioServerCommand(
  also: readonly string[] = [],
  linger = false,
): {
  command: string;
  args: string[];
} {
  return {
    command: process.execPath,
    args: [
      "--import",
      "tsx",
      new URL(import.meta.url).pathname,
      ...also.flatMap((n) => ["--also", n]),
      ...(linger ? ["--linger"] : []),
    ],
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const also: string[] = [];
  for (let i = 2; i < process.argv.length; i++) {
    if (process.argv[i] === "--also") also.push(process.argv[++i]!);
    if (process.argv[i] === "--linger") setInterval(() => {}, 60_000);
  }
  await testMcpServer(also, true).connect(new StdioServerTransport());
}
