/**
 * A run's LLM judge (`rllm eval`, `rllm train`): the config's `judge` section made into the judge
 * the `judge` and `llm_equality` graders ask (rewards/judge.ts `configureJudge`).
 *
 * Its calls go through an in-process gateway of their own whose one upstream is the judge's server
 * (judge.baseUrl, else — rllm eval only — the run's model server, asked for judge.model), with the
 * model pinned to judge.model and no connection retries of its own (the judge client retries).
 * Each HTTP call is a session `judge/<hash>/<random>`, closed after the call: the judge's calls
 * are traced (token ids and logprobs when the server is vLLM) in the run's store beside the
 * episodes' and never inside one. The store: the run gateway's own (rllm eval's traces.db) when it is in this
 * process, else OUTPUT/judge-traces.db (rllm eval --gateway URL, rllm train — whose store the
 * trainer opens inside itself).
 *
 * Checked at startup: a benchmark graded by judge/llm_equality without judge.model is an error
 * naming the key and flag; a judge key set without judge.model is an error (it would do nothing);
 * no server to ask is an error naming judge.baseUrl. The persistent verdict cache is
 * $RLLM_HOME/cache/judge.db (judge.cache).
 */
import { join } from "node:path";
import { ConfigError, givenKeys, type RllmConfig, type UpstreamKind } from "../config/index.js";
import { InProcessGateway } from "../engine/gateway.js";
import { rllmHome } from "../home.js";
import {
  configureJudge,
  createJudge,
  JUDGE_GRADERS,
  type JudgeEndpoint,
} from "../rewards/index.js";
import { JudgeCacheFile } from "../store/judge-cache.js";
import type { Store } from "../store/sqlite.js";

export interface RunJudgeOptions {
  command: "rllm eval" | "rllm train";
  benchmark: string;
  /** The benchmark's grader by name (a custom evaluator may ask the judge too). */
  grader: string;
  /** The run's model server, where it has one in this process (rllm eval). */
  model?: { baseURL?: string | undefined; kind?: UpstreamKind; apiKey?: string | undefined };
  /** The run's open store to trace into; else `storePath` is opened. */
  store?: Store | undefined;
  storePath: string;
  home?: string;
}

export interface RunJudge {
  readonly model: string;
  readonly gateway: InProcessGateway;
  close(): Promise<void>;
}

/**
 * Whether the run has a judge (judge.model set); the startup errors of the header that need no
 * server (call it before anything slow starts).
 */
export function checkRunJudge(
  config: Pick<RllmConfig, "judge">,
  run: Pick<RunJudgeOptions, "command" | "benchmark" | "grader">,
): boolean {
  const j = config.judge;
  if (j.model) {
    if (run.command === "rllm train" && !j.baseUrl)
      throw new ConfigError(
        "judge.baseUrl (--judge-url URL): rllm train's judge is not its policy; give the judge's server",
      );
    return true;
  }
  if ((JUDGE_GRADERS as readonly string[]).includes(run.grader))
    throw new ConfigError(
      `${run.benchmark} is graded by ${run.grader}, which asks an LLM judge: set judge.model (--judge-model NAME)${run.command === "rllm train" ? " and judge.baseUrl (--judge-url URL)" : ", and judge.baseUrl (--judge-url URL) unless the model's own server serves it"}`,
    );
  const stray = [...givenKeys(config, "judge")][0];
  if (stray)
    throw new ConfigError(`judge.${stray}: set judge.model (--judge-model NAME) too, or drop it`);
  return false;
}

/** The run's judge, configured for the graders; undefined when the config names none. */
export async function startRunJudge(
  config: Pick<RllmConfig, "judge">,
  run: RunJudgeOptions,
): Promise<RunJudge | undefined> {
  if (!checkRunJudge(config, run)) return undefined;
  const j = config.judge;
  const model = j.model!;
  const url = j.baseUrl ?? run.model?.baseURL;
  if (!url)
    throw new ConfigError(
      "judge.baseUrl (--judge-url URL): with --gateway there is no model server here to ask; give the judge's server",
    );
  const kind: UpstreamKind = j.kind ?? (j.baseUrl ? "openai" : (run.model?.kind ?? "openai"));
  if (kind === "sglang")
    throw new ConfigError(
      "judge.kind sglang: its native API needs a tokenizer the judge's gateway does not take; use the server's OpenAI API with judge.kind openai",
    );
  const apiKey = j.apiKey ?? (j.baseUrl ? undefined : run.model?.apiKey);
  const gateway = await InProcessGateway.start(
    {
      upstreams: [{ url, kind, model, ...(apiKey ? { apiKey } : {}) }],
      model,
      healthCheckIntervalMs: 0,
      connectRetries: 0,
      // past the client's own timeout, so that a slow judge is named as such
      upstreamTimeoutMs: Math.ceil(j.timeoutSeconds * 1000) + 5_000,
    },
    run.store ? { store: run.store } : { storePath: run.storePath },
  );
  const cache = j.cache
    ? new JudgeCacheFile(join(run.home ?? rllmHome(), "cache", "judge.db"))
    : undefined;
  configureJudge(
    createJudge({
      endpoint: gatewayEndpoint(gateway, url),
      model,
      maxTokens: j.maxTokens,
      retries: j.retries,
      timeoutSeconds: j.timeoutSeconds,
      cache,
    }),
  );
  return {
    model,
    gateway,
    async close() {
      configureJudge(undefined);
      await gateway.close();
      cache?.close();
    },
  };
}

/** One gateway session per judge call, closed after it (its traces stay). */
function gatewayEndpoint(gateway: InProcessGateway, upstream: string): JudgeEndpoint {
  return {
    label: `${upstream} (through the judge's gateway)`,
    async open(id) {
      const s = await gateway.createSession({ id, metadata: { judge: true } });
      return { baseURL: `${s.url}/v1`, apiKey: s.token, done: () => gateway.deleteSession(s.id) };
    },
  };
}
