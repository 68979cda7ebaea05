/**
 * The flag-table machinery: a command's flags are a table (flag-tables.ts), a row per flag with
 * the config key it sets, the parser of its value and its help. From a table come the command's
 * commander options (`addFlags`), the config layer its flags give (`flagLayer`, the top layer of
 * `loadConfig`) and the type of its parsed flags (`FlagValues`). Nothing about a flag is written
 * twice:
 *
 *   - the default `--help` shows is read from the config schema at the row's key (a row says
 *     `default` only where the schema has none and the command decides it, e.g. the lr of RL);
 *   - the choices `--help` shows and commander checks are the schema's enum (or literals) there;
 *   - a parser names the flag in its error (`--group-size x: must be a non-negative integer`);
 *   - a flag that is not one key (train's `--loss`/`--clip-*`/`--kl-coef` build one
 *     `algorithm.loss`, gateway's repeatable `--upstream`, `--store memory` against `--db`) maps
 *     its value with `to`, which sees every flag of the command;
 *   - rows are merged in order, so a later row wins over an earlier one on a shared key (eval's
 *     `--temperature` over `--sampling-params temperature=`);
 *   - a row of one backend's knob (`backend: "torch"`: `--lora-rank`, `--device`) given while the
 *     run's backend (`runBackend`: --backend, else the config file's or RLLM_BACKEND_NAME, else
 *     the default) is another is an error naming the flag, its key and `--backend <name>`.
 *
 * README.md lists each command's flags; flags.test.ts fails when a list and its table disagree.
 */
import { join } from "node:path";
import { type Command, Option } from "commander";
import { z } from "zod";
import {
  ConfigError,
  type ConfigLayer,
  deepMerge,
  RllmConfigSchema,
  readConfigFile,
  UpstreamConfigSchema,
} from "../config/index.js";
import { rllmHome } from "../home.js";
import { SamplingParamsSchema } from "../types/index.js";

// ── parsers ───────────────────────────────────────────────────────────────────────────────────

/** A flag's value from its text; throws a ConfigError that names the flag. */
export type Parser<T = unknown> = (value: string, flag: string) => T;

export const int: Parser<number> = (v, flag) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0)
    throw new ConfigError(`${flag} ${v}: must be a non-negative integer`);
  return n;
};

export const num: Parser<number> = (v, flag) => {
  const n = Number(v);
  if (!Number.isFinite(n)) throw new ConfigError(`${flag} ${v}: must be a number`);
  return n;
};

export const port: Parser<number> = (v, flag) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new ConfigError(`${flag} ${v}: must be an integer from 0 to 65535`);
  return n;
};

/** An integer in [min, max]. */
export function intIn(min: number, max: number): Parser<number> {
  return (v, flag) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < min || n > max)
      throw new ConfigError(
        `${flag} must be an integer in [${min}, ${max}], got ${JSON.stringify(v)}`,
      );
    return n;
  };
}

/** `k=v,k=v` → an object of sampling parameters, values parsed as JSON where they can be. */
export function parseSamplingParams(spec: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const part of spec
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean)) {
    const eq = part.indexOf("=");
    if (eq <= 0) throw new ConfigError(`--sampling-params: "${part}" is not key=value`);
    const key = part.slice(0, eq).trim();
    const raw = part.slice(eq + 1).trim();
    let value: unknown = raw;
    try {
      value = JSON.parse(raw);
    } catch {
      // a bare string such as a stop word
    }
    out[key] = value;
  }
  const checked = SamplingParamsSchema.safeParse(out);
  if (!checked.success) {
    const i = checked.error.issues[0]!;
    const known = Object.keys(SamplingParamsSchema.shape).join(", ");
    throw new ConfigError(
      `--sampling-params: ${i.path.join(".") || i.message}: ${i.message}. Known: ${known}`,
    );
  }
  return checked.data;
}

/** The kind an `--upstream URL` without a `kind=` prefix gets: the schema's default. */
export const UPSTREAM_KIND = UpstreamConfigSchema.shape.kind.parse(undefined);

/** `--upstream [kind=]URL` → an upstream of gateway.upstreams. */
export function parseUpstream(spec: string, apiKey?: string): ConfigLayer {
  const m = /^([a-z]+)=(.+)$/.exec(spec);
  let kind: string = UPSTREAM_KIND;
  let url = spec;
  if (m) {
    const k = UpstreamConfigSchema.shape.kind.safeParse(m[1]);
    if (!k.success)
      throw new ConfigError(
        `--upstream ${spec}: unknown kind "${m[1]}"; use ${UpstreamConfigSchema.shape.kind.unwrap().options.join("=, ")}=`,
      );
    kind = k.data;
    url = m[2]!;
  }
  return { url, kind, ...(apiKey ? { apiKey } : {}) };
}

/** `--sampler vllm=URL[,URL...]` | `sglang=URL[,...]` → backend.sampler's engine and urls. */
export const parseSampler: Parser<{ engine: "vllm" | "sglang"; urls: string[] }> = (v, flag) => {
  const m = /^([a-z]+)=(.*)$/.exec(v.trim());
  const usage = `use ${flag} vllm=URL[,URL...] or ${flag} sglang=URL[,URL...] (each URL a server's root, e.g. http://10.0.0.5:8000)`;
  if (!m) throw new ConfigError(`${flag} ${v}: not ENGINE=URL[,URL...]; ${usage}`);
  const engine = m[1]!;
  if (engine !== "vllm" && engine !== "sglang")
    throw new ConfigError(`${flag} ${v}: unknown engine "${engine}"; ${usage}`);
  const urls = m[2]!.split(",").map((u) => u.trim());
  for (const u of urls) {
    let ok = false;
    try {
      ok = /^https?:$/.test(new URL(u).protocol);
    } catch {
      // not a URL: the error below
    }
    if (!ok)
      throw new ConfigError(`${flag} ${v}: ${JSON.stringify(u)} is not an http(s) URL; ${usage}`);
  }
  return { engine, urls };
};

/** Where `rllm gateway` keeps its store unless told otherwise (store.path). */
export function defaultGatewayStore(env: NodeJS.ProcessEnv = process.env): string {
  return join(rllmHome(env), "gateway", "traces.db");
}

// ── the table's row and what is derived from it ──────────────────────────────────────────────

export interface FlagRow {
  /** Commander's spelling: `--group-size <n>` takes a value, `--async` is a switch. */
  readonly flag: string;
  readonly help: string;
  /** The config key the value sets (dotted); `--help` shows the schema's default there. */
  readonly path?: string;
  /** Text → value (default: the text itself). */
  readonly parse?: Parser;
  /** The flag may be given again; its values collect into an array. */
  readonly repeat?: true;
  /** The command cannot run without it. */
  readonly required?: true;
  /** Allowed values where they are not the schema's enum at `path`. */
  readonly choices?: readonly string[];
  /** The default `--help` shows where the schema has none at `path` (the command's own). */
  readonly default?: string | number;
  /** The config a value gives when it is not one key; it sees every flag of the command. */
  readonly to?: (value: never, flags: Readonly<Record<string, unknown>>) => ConfigLayer;
  /** The flag is a knob of this backend alone: refused when the run's backend is another. */
  readonly backend?: string;
}

/** Where the run's backend was named: `--backend`, the config file, the environment, or nowhere. */
export interface RunBackend {
  name: string;
  /** e.g. "--backend", "config file run.yaml", "RLLM_BACKEND_NAME", "the default". */
  where: string;
}

/**
 * The backend a config file (`--config`) and the environment name, if either does; the
 * environment wins over the file, as in loadConfig.
 */
export function configuredBackend(
  file: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): RunBackend | undefined {
  if (env.RLLM_BACKEND_NAME) return { name: env.RLLM_BACKEND_NAME, where: "RLLM_BACKEND_NAME" };
  if (!file) return undefined;
  const section = readConfigFile(file).backend as Record<string, unknown> | undefined;
  const name = section?.name;
  return typeof name === "string" ? { name, where: `config file ${file}` } : undefined;
}

/** The backend a command runs on: --backend, else the configured one, else the default. */
export function runBackend(flags: Readonly<Record<string, unknown>>): RunBackend {
  if (typeof flags.backend === "string") return { name: flags.backend, where: "--backend" };
  return (
    configuredBackend(flags.config as string | undefined) ?? {
      name: String(defaultAt("backend.name")),
      where: "the default",
    }
  );
}

/**
 * A backend's knob (row.backend): refused when the run's backend is another, else the layer names
 * that backend too (each layer's keys are checked against the backend section it names).
 */
function rowBackend(row: FlagRow, flags: Readonly<Record<string, unknown>>): ConfigLayer {
  if (!row.backend) return {};
  const run = runBackend(flags);
  if (run.name === row.backend) return { backend: { name: run.name } };
  throw new ConfigError(
    `${flagName(row.flag)} is a ${row.backend}-backend option${row.path ? ` (${row.path})` : ""}, and the backend is ${run.name} (${run.where}); pass --backend ${row.backend}, or drop ${flagName(row.flag)}`,
  );
}

type Camel<S extends string> = S extends `${infer H}-${infer T}`
  ? `${H}${Capitalize<Camel<T>>}`
  : S;
type LongName<F extends string> = F extends `--${infer N} ${string}`
  ? N
  : F extends `--${infer N}`
    ? N
    : never;
type RowValue<R> = R extends { parse: Parser<infer T> }
  ? T
  : R extends { flag: `${string}<${string}` }
    ? string
    : boolean;
/** The parsed flags of a table, keyed as commander keys them (`--group-size` → groupSize). */
export type FlagValues<T extends readonly FlagRow[]> = {
  [R in T[number] as Camel<LongName<R["flag"]>>]?: R extends { repeat: true }
    ? RowValue<R>[]
    : RowValue<R>;
};

/** `--group-size <n>` → `groupSize`, as commander keys the parsed value. */
export function flagKey(flag: string): string {
  const long = /--([a-z0-9-]+)/.exec(flag)?.[1];
  if (!long) throw new Error(`flag table: "${flag}" has no --long name`);
  return long.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** `--group-size <n>` → `--group-size`. */
export function flagName(flag: string): string {
  return `--${/--([a-z0-9-]+)/.exec(flag)?.[1]}`;
}

/** The partial config a command's parsed flags give: the top layer of loadConfig. */
export function flagLayer(
  rows: readonly FlagRow[],
  flags: Readonly<Record<string, unknown>>,
): ConfigLayer {
  let layer: ConfigLayer = {};
  for (const row of rows) {
    const value = flags[flagKey(row.flag)];
    if (value === undefined) continue;
    layer = deepMerge(layer, rowBackend(row, flags));
    if (row.to) layer = deepMerge(layer, row.to(value as never, flags));
    else if (row.path) layer = deepMerge(layer, atPath(row.path, value));
  }
  return layer;
}

/** Adds a table's flags to a command, with help, defaults and choices from the schema. */
export function addFlags(cmd: Command, rows: readonly FlagRow[]): Command {
  for (const row of rows) cmd.addOption(flagOption(row));
  return cmd;
}

function flagOption(row: FlagRow): Option {
  // a required flag has no default to show, whatever the schema's at its key
  const shown = row.required
    ? undefined
    : (row.default ?? (row.path ? shownDefault(defaultAt(row.path)) : undefined));
  const o = new Option(
    row.flag,
    shown === undefined ? row.help : `${row.help} (default: ${shown})`,
  );
  const choices = row.choices ?? (row.path && !row.parse ? choicesAt(row.path) : undefined);
  if (row.required) o.makeOptionMandatory();
  if (choices) o.choices(choices);
  else if (row.parse || row.repeat) {
    const name = flagName(row.flag);
    const parse = row.parse ?? ((v: string) => v);
    o.argParser((v: string, previous: unknown) => {
      const value = parse(v, name);
      return row.repeat ? [...((previous as unknown[] | undefined) ?? []), value] : value;
    });
  }
  return o;
}

function atPath(path: string, value: unknown): ConfigLayer {
  return path.split(".").reduceRight<unknown>((v, key) => ({ [key]: v }), value) as ConfigLayer;
}

let defaults: unknown;
/** The schema's default at a dotted key (undefined where it has none). */
export function defaultAt(path: string): unknown {
  defaults ??= RllmConfigSchema.parse({});
  let v: unknown = defaults;
  for (const key of path.split(".")) v = (v as Record<string, unknown> | undefined)?.[key];
  return v;
}

function shownDefault(v: unknown): string | number | undefined {
  if (typeof v === "number" || (typeof v === "string" && v !== "")) return v;
  return undefined; // booleans (a switch is off unless given), objects, arrays
}

/** The schemas of a dotted key (one per union member that has it; none: no such key). */
export function schemasAt(path: string): z.ZodType[] {
  let level: z.ZodType[] = [RllmConfigSchema];
  for (const key of path.split(".")) {
    level = level.flatMap((s) => objectsOf(s).flatMap((o) => (o.shape[key] ? [o.shape[key]] : [])));
  }
  return level;
}

/** The values the schema allows at a dotted key when they are a closed set (enum, literals). */
export function choicesAt(path: string): string[] | undefined {
  const level = schemasAt(path);
  if (!level.length) return undefined;
  const values = new Set<string>();
  for (let s of level) {
    s = unwrap(s);
    if (s instanceof z.ZodEnum) for (const v of s.options) values.add(String(v));
    else if (s instanceof z.ZodLiteral) for (const v of s.values) values.add(String(v));
    else return undefined;
  }
  return values.size ? [...values] : undefined;
}

function unwrap(s: z.ZodType): z.ZodType {
  for (;;) {
    if (s instanceof z.ZodDefault || s instanceof z.ZodOptional || s instanceof z.ZodNullable)
      s = s.unwrap() as z.ZodType;
    else if (s instanceof z.ZodPipe)
      // z.preprocess(fn, schema): the schema; schema.transform(fn): the schema before it
      s = (s.out instanceof z.ZodTransform ? s.in : s.out) as z.ZodType;
    else return s;
  }
}

function objectsOf(schema: z.ZodType): z.ZodObject[] {
  const s = unwrap(schema);
  if (s instanceof z.ZodObject) return [s];
  if (s instanceof z.ZodDiscriminatedUnion || s instanceof z.ZodUnion)
    return (s.options as z.ZodType[]).flatMap(objectsOf);
  return [];
}
