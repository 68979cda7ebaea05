/**
 * The stored model provider (`rllm model setup`): base URL, API key and model name, kept in
 * `$RLLM_HOME/config.json` with file mode 600 because it holds a secret.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { z } from "zod";
import { rllmHome } from "../home.js";
import { ConfigError } from "./load.js";

export const ProviderSchema = z.strictObject({
  baseURL: z.url({
    protocol: /^https?$/,
    error: "must be an http(s) URL, e.g. https://api.openai.com/v1",
  }),
  apiKey: z.string().optional(),
  model: z.string().min(1, "must name a model"),
  /** How the gateway treats it: vllm/sglang give token ids, openai is any hosted API. */
  kind: z.enum(["vllm", "sglang", "openai"]).default("openai"),
});
export type Provider = z.infer<typeof ProviderSchema>;

const SettingsSchema = z.looseObject({ provider: ProviderSchema.optional() });

export function settingsPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(rllmHome(env), "config.json");
}

export function loadProvider(env: NodeJS.ProcessEnv = process.env): Provider | undefined {
  const path = settingsPath(env);
  if (!existsSync(path)) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (err) {
    throw new ConfigError(
      `${path} is not valid JSON (${(err as Error).message}); fix it or run rllm model setup again`,
    );
  }
  const r = SettingsSchema.safeParse(raw);
  if (!r.success) {
    const i = r.error.issues[0]!;
    throw new ConfigError(`${path}: ${i.path.join(".")}: ${i.message}; run rllm model setup again`);
  }
  return r.data.provider;
}

export function saveProvider(provider: Provider, env: NodeJS.ProcessEnv = process.env): string {
  const checked = ProviderSchema.safeParse(provider);
  if (!checked.success) {
    const i = checked.error.issues[0]!;
    throw new ConfigError(`provider ${i.path.join(".")}: ${i.message}`);
  }
  const path = settingsPath(env);
  mkdirSync(dirname(path), { recursive: true });
  let existing: Record<string, unknown> = {};
  if (existsSync(path)) {
    try {
      existing = JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
    } catch {
      existing = {};
    }
  }
  writeFileSync(path, `${JSON.stringify({ ...existing, provider: checked.data }, null, 2)}\n`, {
    mode: 0o600,
  });
  chmodSync(path, 0o600);
  return path;
}

/** An API key shown safely: the first and last few characters only. */
export function maskKey(key: string | undefined): string {
  if (!key) return "(none)";
  if (key.length <= 8) return "*".repeat(key.length);
  return `${key.slice(0, 3)}${"*".repeat(Math.min(20, key.length - 7))}${key.slice(-4)}`;
}
