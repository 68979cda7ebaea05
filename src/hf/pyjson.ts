/**
 * `json.dumps(value, ensure_ascii=False)` as Python writes it: ", " and ": " separators, raw
 * non-ASCII, and Python's float repr. Tool-call arguments are re-serialised this way because it is
 * the shape Qwen/Hermes models were trained on (their templates print `arguments | tojson`) and what
 * vLLM returns, so a conversation echoed back by an agent renders to the text the model sampled.
 */
export function pythonJsonDumps(value: unknown): string {
  if (value === null || value === undefined) return "null";
  switch (typeof value) {
    case "string":
      // JSON.stringify escapes exactly Python's set for ensure_ascii=False: \" \\ \b \f \n \r \t
      // and other C0 controls as lower-case \u00XX.
      return JSON.stringify(value);
    case "boolean":
      return value ? "true" : "false";
    case "number":
      return pythonNumber(value);
    case "object": {
      if (Array.isArray(value)) return `[${value.map(pythonJsonDumps).join(", ")}]`;
      const parts: string[] = [];
      for (const [k, v] of Object.entries(value)) {
        if (v === undefined) continue;
        parts.push(`${JSON.stringify(k)}: ${pythonJsonDumps(v)}`);
      }
      return `{${parts.join(", ")}}`;
    }
    default:
      return "null";
  }
}

/**
 * JSON text loses the int/float distinction once parsed into a JS number, so an integral value is
 * printed as a Python int (the common case: `"limit": 3`) and anything else with Python's repr rule
 * (exponent form below 1e-4 and from 1e16, two-digit exponents).
 */
function pythonNumber(n: number): string {
  if (!Number.isFinite(n)) return Number.isNaN(n) ? "NaN" : n > 0 ? "Infinity" : "-Infinity";
  if (Number.isInteger(n)) return Math.abs(n) < 1e21 ? BigInt(n).toString() : pythonFloat(n);
  return pythonFloat(n);
}

function pythonFloat(n: number): string {
  // toExponential() without an argument gives the shortest digits that round-trip, as repr() does.
  const [mantissa, expText] = n.toExponential().split("e") as [string, string];
  const exp = Number(expText);
  const negative = mantissa.startsWith("-");
  const digits = mantissa.replace("-", "").replace(".", "");
  const sign = negative ? "-" : "";
  if (exp < -4 || exp >= 16) {
    const frac = digits.length > 1 ? `.${digits.slice(1)}` : "";
    const e = Math.abs(exp).toString().padStart(2, "0");
    return `${sign}${digits[0]}${frac}e${exp < 0 ? "-" : "+"}${e}`;
  }
  if (exp < 0) return `${sign}0.${"0".repeat(-exp - 1)}${digits}`;
  const intPart = digits.slice(0, exp + 1).padEnd(exp + 1, "0");
  const fracPart = digits.slice(exp + 1);
  return `${sign}${intPart}.${fracPart === "" ? "0" : fracPart}`;
}
