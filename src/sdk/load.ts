/**
 * Loading a user's agent or evaluator from a module: `FILE[#export]`, JavaScript or TypeScript
 * (through tsx, so a .ts agent runs without a build step).
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import {
  type Evaluator,
  type EvaluatorFn,
  evaluator,
  isEvaluator,
  isRollout,
  type Rollout,
  type RolloutFn,
  rollout,
} from "./rollout.js";

export async function importModule(
  spec: string,
): Promise<{ module: Record<string, unknown>; exportName: string; file: string }> {
  const hash = spec.lastIndexOf("#");
  const file = resolve(hash > 0 ? spec.slice(0, hash) : spec);
  const exportName = hash > 0 ? spec.slice(hash + 1) : "default";
  if (!existsSync(file)) throw new Error(`cannot find module file ${file} (from "${spec}")`);
  let module: Record<string, unknown>;
  try {
    if (/\.(c|m)?tsx?$/.test(file)) {
      const { tsImport } = await import("tsx/esm/api");
      module = (await tsImport(pathToFileURL(file).href, import.meta.url)) as Record<
        string,
        unknown
      >;
    } else {
      module = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
    }
  } catch (err) {
    throw new Error(`cannot load ${file}: ${(err as Error).message}`, { cause: err });
  }
  return { module, exportName, file };
}

function pick(
  module: Record<string, unknown>,
  exportName: string,
  file: string,
  what: string,
): unknown {
  if (!(exportName in module)) {
    const names = Object.keys(module).filter((k) => k !== "__esModule");
    throw new Error(
      `${file} has no export "${exportName}" (it exports: ${names.join(", ") || "nothing"}); name the ${what} as FILE#name`,
    );
  }
  return module[exportName];
}

/** A rollout from `FILE[#export]`: a rollout() value, or a plain (task, config) function. */
export async function loadRollout(spec: string): Promise<Rollout> {
  const { module, exportName, file } = await importModule(spec);
  const value = pick(module, exportName, file, "agent");
  if (isRollout(value)) return value;
  if (typeof value === "function")
    return rollout(value as RolloutFn, {
      name: exportName === "default" ? value.name || "agent" : exportName,
    });
  throw new TypeError(
    `${file}#${exportName} is not a rollout: export rollout(fn) or a function (task, config) => ...`,
  );
}

/** An evaluator from `FILE[#export]`: an evaluator() value, or a plain (task, episode) function. */
export async function loadEvaluator<E>(spec: string): Promise<Evaluator<E>> {
  const { module, exportName, file } = await importModule(spec);
  const value = pick(module, exportName, file, "evaluator");
  if (isEvaluator(value)) return value as Evaluator<E>;
  if (typeof value === "function") return evaluator(value as EvaluatorFn<E>);
  throw new TypeError(
    `${file}#${exportName} is not an evaluator: export evaluator(fn) or a function (task, episode) => ...`,
  );
}
