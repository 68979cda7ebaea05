/**
 * The import graph of src/ has no cycles (type-only imports included): each module can be read,
 * loaded and tested after the ones it imports, and the one-way rule of ARCHITECTURE.md holds
 * inside a folder too. The graph is read from relative `import`/`export ... from` specifiers.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const SRC = join(dirname(fileURLToPath(import.meta.url)), "..");
const SPECIFIER = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+["'](\.{1,2}\/[^"']+)["']/g;

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...sourceFiles(p));
    else if (e.name.endsWith(".ts") && !e.name.endsWith(".d.ts")) out.push(p);
  }
  return out;
}

function resolve(from: string, spec: string): string | null {
  const base = join(dirname(from), spec).replace(/\.js$/, "");
  for (const p of [`${base}.ts`, join(base, "index.ts")]) {
    try {
      if (statSync(p).isFile()) return p;
    } catch {}
  }
  return null;
}

/** Strongly connected components of more than one module (Tarjan). */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(relative(SRC, w));
    } while (w !== v);
    if (component.length > 1) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

test("src/ has no import cycles", () => {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) {
    const deps: string[] = [];
    for (const m of readFileSync(file, "utf8").matchAll(SPECIFIER)) {
      const target = resolve(file, m[1]!);
      if (target) deps.push(target);
    }
    graph.set(file, deps);
  }
  assert.ok(graph.size > 100, `expected the whole source tree, read ${graph.size} files`);
  assert.deepEqual(cycles(graph), []);
});
