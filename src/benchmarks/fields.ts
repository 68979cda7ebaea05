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

/** The first of `names` present in the row (datasets rename fields between copies: `_id` vs `id`). */
function pick(row: Row, names: readonly string[]): { name: string; value: unknown } | undefined {
  for (const name of names) {
    if (row[name] !== undefined && row[name] !== null) return { name, value: row[name] };
  }
  return undefined;
}

function missing(ctx: RowContext, names: readonly string[], expected: string): BenchmarkRowError {
  const field = names.join(`" or "`);
  return new BenchmarkRowError(ctx, field, `is missing (expected ${expected})`);
}

/** A non-empty string field; `names` lists accepted spellings, the first is the canonical one. */
export function requireString(
  row: Row,
  names: string | readonly string[],
  ctx: RowContext,
): string {
  const list = typeof names === "string" ? [names] : names;
  const found = pick(row, list);
  if (!found) throw missing(ctx, list, "a string");
  if (typeof found.value !== "string") {
    throw new BenchmarkRowError(ctx, found.name, `must be a string, got ${describe(found.value)}`);
  }
  if (found.value.trim() === "") throw new BenchmarkRowError(ctx, found.name, "is empty");
  return found.value;
}

/** A string or a number, returned as a string (answers are strings in one copy, ints in another). */
export function requireScalar(
  row: Row,
  names: string | readonly string[],
  ctx: RowContext,
): string {
  const list = typeof names === "string" ? [names] : names;
  const found = pick(row, list);
  if (!found) throw missing(ctx, list, "a string or a number");
  const { name, value } = found;
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
export function optionalScalar(row: Row, names: string | readonly string[]): string | undefined {
  const found = pick(row, typeof names === "string" ? [names] : names);
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

/** An integer field (Parquet INT64 arrives as bigint and is accepted when it fits a double). */
export function requireInteger(
  row: Row,
  names: string | readonly string[],
  ctx: RowContext,
): number {
  const list = typeof names === "string" ? [names] : names;
  const found = pick(row, list);
  if (!found) throw missing(ctx, list, "an integer");
  const value = typeof found.value === "bigint" ? Number(found.value) : found.value;
  if (typeof value !== "number" || !Number.isSafeInteger(value)) {
    throw new BenchmarkRowError(
      ctx,
      found.name,
      `must be an integer, got ${describe(found.value)}`,
    );
  }
  return value;
}

/** A non-empty array of integers. */
export function requireIntegerArray(
  row: Row,
  names: string | readonly string[],
  ctx: RowContext,
): number[] {
  const list = typeof names === "string" ? [names] : names;
  const found = pick(row, list);
  if (!found) throw missing(ctx, list, "an array of integers");
  if (!Array.isArray(found.value) || found.value.length === 0) {
    throw new BenchmarkRowError(
      ctx,
      found.name,
      `must be a non-empty array of integers, got ${describe(found.value)}`,
    );
  }
  return found.value.map((item, i) => {
    const value = typeof item === "bigint" ? Number(item) : item;
    if (typeof value !== "number" || !Number.isSafeInteger(value)) {
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
export function requireValue(
  row: Row,
  names: string | readonly string[],
  ctx: RowContext,
): unknown {
  const list = typeof names === "string" ? [names] : names;
  const found = pick(row, list);
  if (!found) throw missing(ctx, list, "a value");
  return found.value;
}
