/**
 * The sampler's HTTP front end: an OpenAI-compatible server in vLLM's wire shapes over any
 * {@link Generator} (generator.ts), so the gateway (upstream kind `vllm`) treats it exactly as it
 * treats vLLM. The local backend serves its GPT through it (backends/local/sampler.ts); another
 * backend serves by supplying a generator, a tokenizer and a chat renderer.
 *
 *   const s = await SamplerServer.start({ generator, tokenizer, renderChat, maxSeqLen, modelName });
 *   s.baseURL  // http://127.0.0.1:P/v1
 *
 * Endpoints: `GET /health`, `GET /version`, `GET /v1/models`, `POST /v1/chat/completions`,
 * `POST /v1/completions` (streaming and not). vLLM extras: `return_token_ids`
 * (→ `prompt_token_ids`, `choices[].token_ids`), `stop_token_ids`, `top_k`, `ignore_eos`,
 * `include_stop_str_in_output`, `skip_special_tokens`. Every response carries
 * `x-rllm-weight-version`: the weights that produced it.
 *
 * Where it runs: this event loop only parses, schedules (scheduler.ts) and writes (job.ts);
 * generation happens in the generator's lanes.
 *
 * Determinism: sample j of a request with seed S draws from a stream seeded by (S, j) alone, so
 * the same request with the same seed gives the same tokens whatever else shares its batch.
 *
 * Deviations from vLLM, on purpose: a prompt that leaves no room for a token is refused (400), but
 * prompt + max_tokens beyond the context is not — generation stops at the context end with
 * finish_reason "length" (the local model's context is small and agents ask for more). Chat
 * output is always parsed for `<tool_call>` blocks (the model's ChatML format) whatever
 * `tool_choice` says; "required" and named tool choices are refused (no constrained decoding).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { ChatRenderer, Generator, ServingTokenizer } from "./generator.js";
import { HttpError, readRequestJson, sendError, sendVersioned } from "./http.js";
import { Job, type JobInit } from "./job.js";
import {
  type ChatRequest,
  type CompletionRequest,
  parseRequest,
  readPrompts,
  requestSchemas,
} from "./requests.js";
import { BatchScheduler, type SamplerMetrics } from "./scheduler.js";

export interface SamplerServerOptions {
  generator: Generator;
  tokenizer: ServingTokenizer;
  renderChat: ChatRenderer;
  /** The model's context length: prompts must be shorter, prompt + completion stays within it. */
  maxSeqLen: number;
  /** The served model name; requests naming another model get 404. */
  modelName: string;
  host?: string;
  /** 0 (default): an ephemeral port. */
  port?: number;
  /** Most sequences (prompts × n) in one batch (default 64). */
  maxBatch?: number;
  /** How long the first request of an idle queue waits for others to batch with (default 2). */
  batchWindowMs?: number;
}

/** Refuses batching options that cannot work, naming them. */
export function checkBatchingOptions(o: { maxBatch?: number; batchWindowMs?: number }): void {
  const maxBatch = o.maxBatch ?? 64;
  const windowMs = o.batchWindowMs ?? 2;
  if (!Number.isInteger(maxBatch) || maxBatch < 1)
    throw new RangeError(`maxBatch must be an integer ≥ 1, got ${maxBatch}`);
  if (!(windowMs >= 0)) throw new RangeError(`batchWindowMs must be ≥ 0, got ${windowMs}`);
}

const MAX_SEQUENCES_PER_REQUEST = 1024;

export class SamplerServer {
  readonly modelName: string;
  private readonly generator: Generator;
  private readonly tokenizer: ServingTokenizer;
  private readonly renderChat: ChatRenderer;
  private readonly maxSeqLen: number;
  private readonly schemas: ReturnType<typeof requestSchemas>;
  private readonly scheduler: BatchScheduler;
  private readonly server: http.Server;
  private host = "127.0.0.1";
  private listenPort = 0;
  private closed = false;

  private constructor(opts: SamplerServerOptions) {
    checkBatchingOptions(opts);
    this.generator = opts.generator;
    this.tokenizer = opts.tokenizer;
    this.renderChat = opts.renderChat;
    this.maxSeqLen = opts.maxSeqLen;
    this.modelName = opts.modelName;
    this.schemas = requestSchemas(opts.tokenizer.vocabSize);
    this.scheduler = new BatchScheduler(
      opts.generator,
      opts.maxBatch ?? 64,
      opts.batchWindowMs ?? 2,
    );
    this.server = http.createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
      void this.handle(req, res);
    });
    this.server.requestTimeout = 0;
  }

  /** Listens on `host:port` and serves `generator` until close(). */
  static async start(opts: SamplerServerOptions): Promise<SamplerServer> {
    const s = new SamplerServer(opts);
    await s.listen(opts.host ?? "127.0.0.1", opts.port ?? 0);
    return s;
  }

  private listen(host: string, port: number): Promise<void> {
    const server = this.server;
    return new Promise((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, host, () => {
        server.off("error", reject);
        this.host = host;
        this.listenPort = (server.address() as AddressInfo).port;
        resolve();
      });
    });
  }

  /** `http://host:port/v1`, what an OpenAI client takes as its base URL. */
  get baseURL(): string {
    const h = this.host.includes(":") ? `[${this.host}]` : this.host;
    return `http://${h === "0.0.0.0" || h === "[::]" ? "127.0.0.1" : h}:${this.listenPort}/v1`;
  }

  get port(): number {
    return this.listenPort;
  }

  get metrics(): Readonly<SamplerMetrics> {
    return this.scheduler.metrics;
  }

  /** Fails what is queued or running with a 503 and stops listening; the generator is the caller's. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.scheduler.close(new HttpError(503, "the sampler is shutting down"));
    const server = this.server;
    if (server.listening)
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
  }

  private get version(): number {
    return this.generator.weightVersion;
  }

  // ── routes ─────────────────────────────────────────────────────────────────────────────────

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    const path = q < 0 ? url : url.slice(0, q);
    const method = req.method ?? "GET";
    try {
      if (path === "/health" || path === "/v1/models" || path === "/version") {
        req.resume();
        if (method !== "GET" && method !== "HEAD")
          throw new HttpError(405, `${path} answers GET only`);
        if (path === "/health") {
          res.writeHead(200, {
            "content-length": 0,
            "x-rllm-weight-version": String(this.version),
          });
          res.end();
        } else if (path === "/version")
          sendVersioned(res, 200, { version: "rllm-local" }, this.version);
        else sendVersioned(res, 200, this.modelsBody(), this.version);
        return;
      }
      if (path !== "/v1/chat/completions" && path !== "/v1/completions") {
        req.resume();
        throw new HttpError(
          404,
          `no route ${method} ${path}; this server answers /health, /v1/models, /v1/chat/completions and /v1/completions`,
        );
      }
      if (method !== "POST") {
        req.resume();
        throw new HttpError(405, `${path} answers POST only`);
      }
      const body = await readRequestJson(req);
      if (this.closed) throw new HttpError(503, "the sampler is shutting down");
      const job =
        path === "/v1/chat/completions" ? this.chatJob(body, res) : this.completionJob(body, res);
      this.scheduler.enqueue(job);
    } catch (e) {
      const err =
        e instanceof HttpError
          ? e
          : new HttpError(500, `internal error: ${e instanceof Error ? e.message : String(e)}`);
      sendError(res, err, this.version);
    }
  }

  private modelsBody() {
    const created = Math.floor(Date.now() / 1000);
    return {
      object: "list",
      data: [
        {
          id: this.modelName,
          object: "model",
          created,
          owned_by: "rllm",
          root: this.modelName,
          parent: null,
          max_model_len: this.maxSeqLen,
          permission: [],
        },
      ],
    };
  }

  // ── requests → jobs ────────────────────────────────────────────────────────────────────────

  private checkModel(model: string | null | undefined): void {
    if (model != null && model !== this.modelName)
      throw new HttpError(
        404,
        `The model \`${model}\` does not exist. This server serves "${this.modelName}"; omit "model" or send that name.`,
        { param: "model" },
      );
  }

  private checkPrompt(ids: number[], what: string, param: string): void {
    const max = this.maxSeqLen;
    if (ids.length === 0) throw new HttpError(400, `${what} is empty`, { param });
    if (ids.length >= max)
      throw new HttpError(
        400,
        `${what} is ${ids.length} tokens; this model's maximum context length is ${max} tokens and it needs room for at least one generated token. Shorten the input.`,
        { param },
      );
  }

  private sampling(
    r: ChatRequest | CompletionRequest,
    maxTokens: number | null | undefined,
    dflt: number,
  ): Pick<
    JobInit,
    | "sampling"
    | "n"
    | "seed"
    | "ignoreEos"
    | "includeStop"
    | "skipSpecial"
    | "stream"
    | "includeUsage"
    | "wantIds"
    | "modelName"
    | "maxSeqLen"
  > {
    this.checkModel(r.model);
    const stream = r.stream === true;
    if (r.stream_options != null && !stream)
      throw new HttpError(400, "stream_options can only be set when stream is true", {
        param: "stream_options",
      });
    const ignoreEos = r.ignore_eos === true;
    const stopIds = [
      ...new Set([...(ignoreEos ? [] : this.tokenizer.eosTokenIds), ...(r.stop_token_ids ?? [])]),
    ];
    const stops = r.stop == null ? [] : typeof r.stop === "string" ? [r.stop] : r.stop;
    const topK = r.top_k ?? 0;
    return {
      sampling: {
        maxTokens: Math.min(maxTokens ?? dflt, this.maxSeqLen),
        temperature: r.temperature ?? 1,
        topP: r.top_p ?? 1,
        topK: Math.max(topK, 0),
        stopTokenIds: stopIds.sort((a, b) => a - b),
        stopSequences: [...new Set(stops.filter((x) => x.length > 0))],
      },
      n: r.n ?? 1,
      seed: r.seed ?? null,
      ignoreEos,
      includeStop: r.include_stop_str_in_output === true,
      skipSpecial: r.skip_special_tokens !== false,
      stream,
      includeUsage: stream && r.stream_options?.include_usage === true,
      wantIds: r.return_token_ids === true,
      modelName: this.modelName,
      maxSeqLen: this.maxSeqLen,
    };
  }

  private chatJob(body: unknown, res: http.ServerResponse): Job {
    const r = parseRequest(this.schemas.chat, body);
    const tc = r.tool_choice;
    if (tc !== undefined && tc !== null && tc !== "auto" && tc !== "none")
      throw new HttpError(
        400,
        `tool_choice ${JSON.stringify(tc)} needs constrained decoding, which the local sampler does not do; use "auto" or "none"`,
        { param: "tool_choice" },
      );
    if (r.top_logprobs && !r.logprobs)
      throw new HttpError(400, "top_logprobs needs logprobs: true", { param: "top_logprobs" });
    const common = this.sampling(r, r.max_completion_tokens ?? r.max_tokens, this.maxSeqLen);
    let prompt: number[];
    try {
      prompt = this.renderChat(r.messages, {
        addGenerationPrompt: r.add_generation_prompt !== false,
        ...(r.tools && r.tools.length > 0 ? { tools: r.tools } : {}),
      });
    } catch (e) {
      throw new HttpError(400, e instanceof Error ? e.message : String(e), { param: "messages" });
    }
    this.checkPrompt(prompt, "the rendered prompt", "messages");
    return new Job(
      {
        kind: "chat",
        prompts: [prompt],
        ...common,
        logprobs: r.logprobs === true,
        topLogprobs: r.logprobs ? (r.top_logprobs ?? 0) : 0,
      },
      res,
      this.tokenizer,
    );
  }

  private completionJob(body: unknown, res: http.ServerResponse): Job {
    const r = parseRequest(this.schemas.completion, body);
    // vLLM: an absent max_tokens is 16 on this endpoint, an explicit null the rest of the context
    const common = this.sampling(r, r.max_tokens === null ? this.maxSeqLen : r.max_tokens, 16);
    const prompts = readPrompts(r.prompt, this.tokenizer);
    if (prompts.length * (r.n ?? 1) > MAX_SEQUENCES_PER_REQUEST)
      throw new HttpError(
        400,
        `${prompts.length} prompts × n ${r.n ?? 1} is over ${MAX_SEQUENCES_PER_REQUEST} sequences in one request; split it`,
        { param: "prompt" },
      );
    prompts.forEach((p, i) => {
      this.checkPrompt(p, prompts.length > 1 ? `prompt ${i}` : "the prompt", "prompt");
    });
    return new Job(
      {
        kind: "completions",
        prompts,
        ...common,
        logprobs: r.logprobs != null,
        topLogprobs: r.logprobs ?? 0,
      },
      res,
      this.tokenizer,
    );
  }
}
