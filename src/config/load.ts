/**
 * Config loading: defaults ← file (`--config`, YAML or JSON) ← `RLLM_*` environment ← CLI flags.
 * Each layer is a partial object merged deeply over the one before; the result is validated once
 * against the strict schema, so an unknown key from any layer is an error that names the key, the
 * layer it came from and the closest known key.
 */
import { readFileSync } from "node:fs";
import { extname } from "node:path";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { type RllmConfig, RllmConfigSchema } from "./schema.js";

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

export type ConfigLayer = Record<string, unknown>;

export interface LoadConfigOptions {
  /** Path to a YAML or JSON config file. */
  file?: string;
  /** Environment to read `RLLM_*` variables from (default: process.env). */
  env?: NodeJS.ProcessEnv;
  /** Overrides from CLI flags, as a partial config. */
  flags?: ConfigLayer;
  /** Defaults of what is being run (a recipe), under every other layer: the file overrides them. */
  defaults?: { name: string; value: ConfigLayer };
}

/** Variables that share the prefix but are not config keys (the two of logging: below). */
const NON_CONFIG_ENV = new Set([
  "RLLM_HOME",
  "RLLM_LOG_LEVEL",
  "RLLM_NO_PROGRESS",
  "RLLM_DEBUG",
  "RLLM_HF_ENDPOINT",
  // The torch backend's Python interpreter (backend.python's default).
  "RLLM_PYTHON",
  // Set by rllm for child-process agents.
  "RLLM_SESSION_ID",
  "RLLM_TASK",
  "RLLM_MODEL",
]);
/** Prefixes of such variables: RLLM_HARNESS_<NAME>, a CLI harness's install dir (agents/harness/install.ts). */
const NON_CONFIG_ENV_PREFIXES = ["RLLM_HARNESS_"];

/** The levels of RLLM_LOG_LEVEL, most verbose first. */
export const LOG_LEVELS = ["debug", "info", "warn", "error"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * RLLM_LOG_LEVEL: the least severe of the commands' log lines that is written (default info;
 * warn keeps warnings and errors, error only errors, debug adds stack traces). Another value is
 * an error naming the variable.
 */
export function logLevel(env: NodeJS.ProcessEnv = process.env): LogLevel {
  const v = env.RLLM_LOG_LEVEL;
  if (v === undefined || v === "") return "info";
  const level = LOG_LEVELS.find((l) => l === v.toLowerCase());
  if (!level) throw new ConfigError(`RLLM_LOG_LEVEL=${v}: use one of ${LOG_LEVELS.join(", ")}`);
  return level;
}

/** RLLM_NO_PROGRESS: set to anything but "", "0" or "false", no progress bars or lines. */
export function progressEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  const v = env.RLLM_NO_PROGRESS;
  return v === undefined || v === "" || v === "0" || v.toLowerCase() === "false";
}

export function loadConfig(options: LoadConfigOptions = {}): RllmConfig {
  logLevel(options.env ?? process.env); // a bad RLLM_LOG_LEVEL is refused with the rest
  const layers: { name: string; value: ConfigLayer }[] = [];
  if (options.defaults) layers.push(options.defaults);
  if (options.file)
    layers.push({ name: `config file ${options.file}`, value: readConfigFile(options.file) });
  layers.push({ name: "environment", value: envLayer(options.env ?? process.env) });
  if (options.flags) layers.push({ name: "command-line flags", value: options.flags });
  // Validate each layer's keys on its own first, so the error can say where a bad key came from.
  for (const layer of layers) checkKeys(layer.value, RllmConfigSchema, [], layer.name);
  const merged = layers.reduce<ConfigLayer>((acc, l) => deepMerge(acc, l.value), {});
  return parseConfig(merged);
}

/** Validates a whole config object (e.g. one built in code). */
export function parseConfig(value: unknown): RllmConfig {
  const result = RllmConfigSchema.safeParse(value);
  if (!result.success) throw new ConfigError(formatIssues(result.error.issues, "config"));
  const config = result.data;
  if (isPlainObject(value))
    for (const [name, section] of Object.entries(config)) {
      const raw = value[name];
      given.set(section, new Set(isPlainObject(raw) ? Object.keys(raw) : []));
    }
  return config;
}

/** The keys of each parsed section that some layer set (the rest are the schema's defaults). */
const given = new WeakMap<object, ReadonlySet<string>>();
let schemaDefaults: RllmConfig | undefined;

/**
 * The keys of a config section that some layer set — a defaults layer, the file, the environment
 * or a flag — as opposed to the schema's defaults. For a config that did not come through
 * loadConfig/parseConfig (built in code), the keys whose value differs from the schema's default.
 */
export function givenKeys<S extends keyof RllmConfig>(
  config: Pick<RllmConfig, S>,
  section: S,
): ReadonlySet<string> {
  const value = config[section] as Record<string, unknown>;
  const known = given.get(value);
  if (known) return known;
  schemaDefaults ??= RllmConfigSchema.parse({});
  const dflt = schemaDefaults[section] as Record<string, unknown>;
  return new Set(
    Object.keys(value).filter((k) => JSON.stringify(value[k]) !== JSON.stringify(dflt[k])),
  );
}

export function readConfigFile(path: string): ConfigLayer {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new ConfigError(`cannot read config file ${path}: ${(err as Error).message}`);
  }
  let value: unknown;
  try {
    value = extname(path) === ".json" ? JSON.parse(text) : parseYaml(text);
  } catch (err) {
    throw new ConfigError(
      `config file ${path} is not valid ${extname(path) === ".json" ? "JSON" : "YAML"}: ${(err as Error).message}`,
    );
  }
  if (value == null) return {};
  if (typeof value !== "object" || Array.isArray(value)) {
    throw new ConfigError(
      `config file ${path} must hold a mapping of sections (gateway:, store:, ...)`,
    );
  }
  return value as ConfigLayer;
}

/**
 * `RLLM_<SECTION>_<KEY>` → `{section: {key}}`, with the key in snake case (`RLLM_GATEWAY_ADMIN_KEY`
 * → gateway.adminKey). Values are parsed as JSON when they can be (numbers, booleans, arrays), else
 * kept as strings.
 */
export function envLayer(env: NodeJS.ProcessEnv): ConfigLayer {
  const out: ConfigLayer = {};
  const sections = Object.keys(RllmConfigSchema.shape);
  for (const [name, raw] of Object.entries(env)) {
    if (!name.startsWith("RLLM_") || NON_CONFIG_ENV.has(name) || raw === undefined) continue;
    if (NON_CONFIG_ENV_PREFIXES.some((p) => name.startsWith(p))) continue;
    const rest = name.slice(5).toLowerCase();
    const section = sections.find((s) => rest.startsWith(`${s.toLowerCase()}_`));
    if (!section) {
      const guess = closest(rest.split("_")[0] ?? "", sections);
      throw new ConfigError(
        `environment variable ${name} names no config section${guess ? ` (did you mean RLLM_${guess.toUpperCase()}_...?)` : ""}; ` +
          `known sections: ${sections.join(", ")}`,
      );
    }
    const key = rest
      .slice(section.length + 1)
      .replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
    if (!isPlainObject(out[section])) out[section] = {};
    const sectionObj = out[section] as ConfigLayer;
    sectionObj[key] = parseEnvValue(raw);
  }
  return out;
}

function parseEnvValue(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

export function deepMerge(base: ConfigLayer, over: ConfigLayer): ConfigLayer {
  const out: ConfigLayer = { ...base };
  for (const [k, v] of Object.entries(over)) {
    if (v === undefined) continue;
    const b = out[k];
    out[k] = isPlainObject(b) && isPlainObject(v) ? deepMerge(b, v) : v;
  }
  return out;
}

function isPlainObject(v: unknown): v is ConfigLayer {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Walks a layer against the schema and throws on the first unknown key, with a suggestion. */
function checkKeys(value: unknown, schema: z.ZodType, path: string[], layerName: string): void {
  const obj = unwrapObject(schema, value);
  if (!obj || !isPlainObject(value)) return;
  const known = Object.keys(obj.shape);
  for (const [k, v] of Object.entries(value)) {
    const child = obj.shape[k] as z.ZodType | undefined;
    if (!child) {
      const where = [...path, k].join(".");
      const guess = closest(k, known);
      throw new ConfigError(
        `unknown config key "${where}" in ${layerName}` +
          (guess ? ` — did you mean "${[...path, guess].join(".")}"?` : "") +
          ` Known keys${path.length ? ` in ${path.join(".")}` : ""}: ${known.join(", ")}`,
      );
    }
    checkKeys(v, child, [...path, k], layerName);
  }
}

function unwrapObject(schema: z.ZodType, value?: unknown): z.ZodObject | undefined {
  let s: z.ZodType = schema;
  for (let i = 0; i < 6; i++) {
    if (s instanceof z.ZodObject) return s;
    if (s instanceof z.ZodPipe) {
      s = s.out as z.ZodType; // z.preprocess(fn, schema): check keys against the schema
      continue;
    }
    if (s instanceof z.ZodDiscriminatedUnion) {
      // the member the value names (or the first, the default), e.g. backend.name
      const key = s.def.discriminator;
      const want = isPlainObject(value) ? value[key] : undefined;
      const members = s.options as z.ZodType[];
      s =
        members.find((m) => {
          const o = unwrapObject(m);
          return o !== undefined && want !== undefined && o.shape[key]?.safeParse(want).success;
        }) ?? members[0]!;
      continue;
    }
    if (s instanceof z.ZodDefault || s instanceof z.ZodOptional || s instanceof z.ZodNullable) {
      s = s.unwrap() as z.ZodType;
      continue;
    }
    return undefined;
  }
  return undefined;
}

export function formatIssues(issues: readonly z.core.$ZodIssue[], what: string): string {
  const lines = issues.slice(0, 8).map((i) => {
    const path = i.path.map(String).join(".") || "(root)";
    if (i.code === "unrecognized_keys") return `${path}: unknown key(s) ${i.keys.join(", ")}`;
    return `${path}: ${i.message}`;
  });
  return `invalid ${what}:\n  ${lines.join("\n  ")}`;
}

/** The known name closest to `name` by edit distance, if it is close enough to be a likely typo. */
export function closest(name: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestD = Number.POSITIVE_INFINITY;
  const lower = name.toLowerCase();
  for (const k of known) {
    const d = editDistance(lower, k.toLowerCase());
    if (d < bestD) {
      bestD = d;
      best = k;
    }
  }
  return best !== undefined && bestD <= Math.max(2, Math.floor(name.length / 3)) ? best : undefined;
}

function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = prev[j]!;
      prev[j] = Math.min(prev[j]! + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = tmp;
    }
  }
  return prev[b.length]!;
}
