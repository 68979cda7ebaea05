/**
 * The training backends rllm knows, by name. Each lives in its own folder (`src/backends/<name>/`)
 * and hands the registry one definition: its strict config schema, its capabilities, and how to
 * start it. The config's `backend` section, the CLI's `--backend` choices and the backend that
 * `rllm train` starts all come from BACKENDS below, so adding a backend is its folder plus one
 * entry in that list.
 *
 * A definition is loaded with the config (the schema is part of it), so its module imports zod
 * and types only; `create` and `serve` import the implementation (worker threads, wasm, a Python
 * process) when a run needs it.
 */
import { z } from "zod";
import { localBackend } from "./local/index.js";
import type { BackendDefinition, BackendSectionSchema } from "./spi.js";
import { torchBackend } from "./torch/index.js";

/** The backends; the first is the default (`backend.name` omitted). */
export const BACKENDS = [localBackend, torchBackend] as const;

/** The `backend` section: one strict schema per backend, told apart by `name`. */
export const BackendConfigSchema = backendConfigSchema(BACKENDS);

/** The registered backends' names, the default first. */
export function backendNames(): [string, ...string[]] {
  const [first, ...rest] = BACKENDS.map((b) => b.name);
  return [first!, ...rest];
}

/** The definition registered as `name`. */
export function backendDefinition(name: string): BackendDefinition {
  const found = BACKENDS.find((b) => b.name === name);
  if (!found)
    throw new Error(`unknown backend "${name}"; the backends are ${backendNames().join(", ")}`);
  return found;
}

/**
 * The `backend` section's schema for `definitions`: a discriminated union on `name` (the first
 * definition's when omitted, so `backend: {trainWorkers: 1}` means the default backend's knob).
 * An unknown name is an error listing the backends; a knob of another backend is an unknown key
 * of the chosen one's strict schema.
 */
export function backendConfigSchema<
  const D extends readonly [BackendDefinition, ...BackendDefinition[]],
>(definitions: D): z.ZodType<z.output<D[number]["configSchema"]>> {
  const names = definitions.map((d) => d.name);
  const duplicate = names.find((n, i) => names.indexOf(n) !== i);
  if (duplicate) throw new Error(`backend "${duplicate}" is registered twice`);
  const schemas = definitions.map((d) => d.configSchema) as [
    BackendSectionSchema,
    ...BackendSectionSchema[],
  ];
  const union = z.discriminatedUnion("name", schemas, {
    error: (issue) =>
      issue.code === "invalid_union"
        ? `unknown backend ${JSON.stringify((issue.input as { name?: unknown }).name)}; the backends are ${names.join(", ")}`
        : undefined,
  });
  const withDefaultName = (v: unknown) =>
    typeof v === "object" &&
    v !== null &&
    !Array.isArray(v) &&
    !("name" in v && v.name !== undefined)
      ? { ...v, name: names[0] }
      : v;
  return z.preprocess(withDefaultName, union) as unknown as z.ZodType<
    z.output<D[number]["configSchema"]>
  >;
}
