/**
 * The map in ARCHITECTURE.md is checked against the code: every area of src/ (a folder, or a
 * top-level module such as random.ts) has a row in its table, every import between two areas is
 * one the table allows, and no module imports itself back through a chain of imports (a cycle
 * makes load order matter and hides which side owns what). Type-only imports count too: they are
 * dependencies a reader has to follow. Test files and the test helpers in src/testing/ are free.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const SRC = join(ROOT, "src");

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) {
      if (name !== "fixtures") out.push(...sourceFiles(p));
    } else if (/\.ts$/.test(name) && !/\.(test|d)\.ts$/.test(name)) out.push(p);
  }
  return out;
}

/** `types` for src/types/x.ts, `random` for src/random.ts. */
function areaOf(file: string): string {
  return relative(SRC, file).split("/")[0]!.replace(/\.ts$/, "");
}

/** Relative imports of a module (static, type-only, re-exports and dynamic), resolved to files. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const specs = [
    ...text.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s+"(\.{1,2}\/[^"]+)"/gms),
    ...text.matchAll(/^\s*import\s+"(\.{1,2}\/[^"]+)"/gm),
    ...text.matchAll(/\bimport\(\s*"(\.{1,2}\/[^"]+)"\s*\)/g),
  ].map((m) => m[1]!);
  return specs.map((s) => resolve(dirname(file), s).replace(/\.js$/, ".ts"));
}

/** The folder table of ARCHITECTURE.md: area → the areas it may import (`*`: any). */
function mapTable(): Map<string, Set<string> | "*"> {
  const md = readFileSync(join(ROOT, "ARCHITECTURE.md"), "utf8");
  const rows = new Map<string, Set<string> | "*">();
  for (const line of md.split("\n")) {
    const m = /^\|\s*`src\/([^`]+?)(?:\/|\.ts)?`\s*\|[^|]*\|([^|]*)\|\s*$/.exec(line);
    if (!m) continue;
    const cell = m[2]!;
    const names = [...cell.matchAll(/`([^`]+)`/g)].map((x) => x[1]!.replace(/\/$/, ""));
    rows.set(m[1]!, /^\s*everything\s*$/.test(cell) ? "*" : new Set(names));
  }
  return rows;
}

const files = sourceFiles(SRC);
const edges = new Map(files.map((f) => [f, importsOf(f)] as const));

test("ARCHITECTURE.md has a row for every area of src/, and every row is an area", () => {
  const table = mapTable();
  assert.ok(table.size > 10, "the folder table of ARCHITECTURE.md was not found");
  const areas = new Set(files.map(areaOf));
  assert.deepEqual([...areas].filter((a) => !table.has(a)).sort(), [], "areas without a row");
  assert.deepEqual([...table.keys()].filter((a) => !areas.has(a)).sort(), [], "rows of no area");
});

test("imports between areas follow the table of ARCHITECTURE.md", () => {
  const table = mapTable();
  // the import reader sees imports at all (else every check below passes on nothing)
  assert.ok(
    edges.get(join(SRC, "trainer/trainer.ts"))?.includes(join(SRC, "backends/spi.ts")),
    "importsOf found no import of backends/spi.ts in trainer/trainer.ts",
  );
  const bad: string[] = [];
  for (const [from, targets] of edges) {
    const a = areaOf(from);
    const allowed = table.get(a);
    if (allowed === "*" || allowed === undefined) continue;
    for (const to of targets) {
      const b = areaOf(to);
      if (b !== a && !allowed.has(b))
        bad.push(`${relative(SRC, from)} imports ${relative(SRC, to)} (${a} may not import ${b})`);
    }
  }
  assert.deepEqual(bad, []);
});

test("no import cycles", () => {
  const cycles: string[] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (f: string) => {
    state.set(f, "open");
    stack.push(f);
    for (const g of edges.get(f) ?? []) {
      if (!edges.has(g)) continue; // not a source module (e.g. a .json file)
      if (state.get(g) === "open")
        cycles.push([...stack.slice(stack.indexOf(g)), g].map((x) => relative(SRC, x)).join(" → "));
      else if (!state.has(g)) visit(g);
    }
    stack.pop();
    state.set(f, "done");
  };
  for (const f of files) if (!state.has(f)) visit(f);
  assert.deepEqual(cycles, []);
});
