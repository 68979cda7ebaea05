/**
 * Reading fields out of dataset rows. Rows come from files that rllm did not write (JSONL, Parquet
 * from the Hub, a user's own folder), so every read is checked, and a bad row is reported with the
 * benchmark, the split, the row index and the field, which is what a user needs to find it.
 */

export type Row = Record<string, unknown>;

/** Where a row came from, for error messages. */
export interface RowContext {
  benchmark: string;
  split: string;
  index: number;
}

/** A dataset row that lacks a field or holds the wrong kind of value in it. */
export class BenchmarkRowError extends Error {
  readonly benchmark: string;
  readonly split: string;
  readonly rowIndex: number;
  readonly field: string;

  constructor(ctx: RowContext, field: string, problem: string) {
    super(
      `${ctx.benchmark}: row ${ctx.index} of split "${ctx.split}": field "${field}" ${problem}`,
    );
    this.name = "BenchmarkRowError";
    this.benchmark = ctx.benchmark;
    this.split = ctx.split;
    this.rowIndex = ctx.index;
    this.field = field;
  }
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return `a ${typeof value}`;
}

/** A field's accepted spellings, the first the canonical one (or the one spelling). */
type Names = string | readonly string[];

/** The first of `names` present in the row (datasets rename fields between copies: `_id` vs `id`). */
function pick(row: Row, names: Names): { name: string; value: unknown } | undefined {
  for (const name of typeof names === "string" ? [names] : names) {
    if (row[name] !== undefined && row[name] !== null) return { name, value: row[name] };
  }
  return undefined;
}

/** Like pick, but a row without any of `names` is an error that says what was `expected`. */
function find(
  row: Row,
  names: Names,
  ctx: RowContext,
  expected: string,
): { name: string; value: unknown } {
  const found = pick(row, names);
  if (found) return found;
  const field = typeof names === "string" ? names : names.join(`" or "`);
  throw new BenchmarkRowError(ctx, field, `is missing (expected ${expected})`);
}

/** A non-empty string field; `names` lists accepted spellings, the first is the canonical one. */
export function requireString(row: Row, names: Names, ctx: RowContext): string {
  const found = find(row, names, ctx, "a string");
  if (typeof found.value !== "string") {
    throw new BenchmarkRowError(ctx, found.name, `must be a string, got ${describe(found.value)}`);
  }
  if (found.value.trim() === "") throw new BenchmarkRowError(ctx, found.name, "is empty");
  return found.value;
}

/** A string or a number, returned as a string (answers are strings in one copy, ints in another). */
export function requireScalar(row: Row, names: Names, ctx: RowContext): string {
  const { name, value } = find(row, names, ctx, "a string or a number");
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "string" && value.trim() !== "") return value;
  throw new BenchmarkRowError(
    ctx,
    name,
    `must be a non-empty string or a number, got ${describe(value)}`,
  );
}

/** Like requireScalar, but absent is fine. */
export function optionalScalar(row: Row, names: Names): string | undefined {
  const found = pick(row, names);
  if (!found) return undefined;
  const { value } = found;
  if (typeof value === "string" || typeof value === "number" || typeof value === "bigint") {
    return String(value);
  }
  return undefined;
}

export function optionalString(row: Row, name: string): string | undefined {
  const value = row[name];
  return typeof value === "string" ? value : undefined;
}

/** Copies each of `names` that the row holds as a string into `data`: a dataset's optional extras. */
export function copyOptionalStrings(
  row: Row,
  names: readonly string[],
  data: Record<string, unknown>,
): void {
  for (const name of names) {
    const value = optionalString(row, name);
    if (value !== undefined) data[name] = value;
  }
}

/** `value` as an exact integer, or undefined; a bigint (Parquet INT64) counts when a double holds it. */
function asInteger(value: unknown): number | undefined {
  const n = typeof value === "bigint" ? Number(value) : value;
  return typeof n === "number" && Number.isSafeInteger(n) ? n : undefined;
}

/** An integer field (Parquet INT64 arrives as bigint and is accepted when it fits a double). */
export function requireInteger(row: Row, names: Names, ctx: RowContext): number {
  const found = find(row, names, ctx, "an integer");
  const value = asInteger(found.value);
  if (value === undefined) {
    throw new BenchmarkRowError(
      ctx,
      found.name,
      `must be an integer, got ${describe(found.value)}`,
    );
  }
  return value;
}

/** A non-empty array of integers. */
export function requireIntegerArray(row: Row, names: Names, ctx: RowContext): number[] {
  const found = find(row, names, ctx, "an array of integers");
  if (!Array.isArray(found.value) || found.value.length === 0) {
    throw new BenchmarkRowError(
      ctx,
      found.name,
      `must be a non-empty array of integers, got ${describe(found.value)}`,
    );
  }
  return found.value.map((item, i) => {
    const value = asInteger(item);
    if (value === undefined) {
      throw new BenchmarkRowError(
        ctx,
        `${found.name}[${i}]`,
        `must be an integer, got ${describe(item)}`,
      );
    }
    return value;
  });
}

/** A field that must be present, of any shape; the caller checks the shape. */
export function requireValue(row: Row, names: Names, ctx: RowContext): unknown {
  return find(row, names, ctx, "a value").value;
}
