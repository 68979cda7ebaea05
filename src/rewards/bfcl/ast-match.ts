/**
 * BFCL's AST check for its Python categories, ported from gorilla:
 * berkeley-function-call-leaderboard/bfcl_eval/eval_checker/ast_eval/ast_checker.py
 * (`ast_checker`, `simple_function_checker`, `multiple_function_checker`,
 * `parallel_function_checker_no_order`, `type_checker`, `string_checker`, `list_checker`,
 * `dict_checker`, `list_dict_checker`). The verdicts and error-type strings are BFCL's; the
 * messages are ours.
 *
 * Categories: "simple" and "multiple" expect exactly one call (simple checks it against the first
 * function doc, multiple against the doc named by the answer); "parallel" and "parallel_multiple"
 * expect as many calls as answers, in any order: answers are taken in order and each is matched to
 * the first unused call that passes (greedy, no backtracking, as BFCL does).
 *
 * One call against one answer (`{func: {param: [acceptable values]}}`):
 * - the call's name must be the function's (with `underscoreToDot`, the function's dots read as
 *   underscores, BFCL's rule for models whose tool API forbids dots in names);
 * - every `required` parameter present; every parameter given must be in the doc AND in the answer;
 * - types by the doc's type (string, integer, float, boolean, array, tuple, dict, any → Python's
 *   str, int, float, bool, list, list, dict, str); an int is accepted for a float; a tuple
 *   parameter takes a tuple or a list (BFCL turns the tuple into a list), an array parameter a list
 *   only; array/tuple items are type-checked one level deep against `items.type`; a value whose
 *   type is that of the answer's first non-"" value passes as a "variable";
 * - values: strings compared after standardisation (spaces and `,./-_*^` removed, lowercased, `'`
 *   read as `"`), lists element-wise with their strings standardised, dicts key by key (each key's
 *   value among its acceptable ones, a missing key allowed only when "" is acceptable), lists of
 *   dicts dict by dict in order, anything else by Python `==` against the acceptable values;
 * - every answer parameter the call omits must list "" (optional).
 *
 * A JSON ground truth cannot say whether `5` was written `5` or `5.0` (value.ts); an integral
 * answer value reads as an int. That matters in one place only: BFCL rejects the ints of
 * `[1, 2]` for an array of floats when its data wrote `[1.0, 2.0]` and accepts them when it wrote
 * `[1, 2]`; here they are accepted in both cases (a float parameter itself takes an int anyway).
 */

import type { BfclCall } from "./parse.js";
import {
  dictGet,
  fromJson,
  type PyType,
  type PyVal,
  pyEq,
  pyIn,
  pyItems,
  pyList,
  pyRepr,
  pyStr,
  pyType,
} from "./value.js";

export type BfclCategory = "simple" | "multiple" | "parallel" | "parallel_multiple";

/** A BFCL function doc, as far as the checker reads it (grader.ts checks it). */
export interface BfclFunctionDoc {
  name: string;
  parameters: {
    properties: Record<string, { type: string; items?: { type: string } }>;
    required: string[];
  };
}

/** One ground-truth call: the function name and, per parameter, its acceptable values (JSON). */
export interface BfclAnswer {
  name: string;
  params: [string, unknown[]][];
}

interface BfclCheck {
  valid: boolean;
  /** BFCL's error_type, e.g. "simple_function_checker:wrong_count"; only when not valid. */
  errorType?: string;
  errors: string[];
}

/** The doc types BFCL's Python checker knows, as Python types (its PYTHON_TYPE_MAPPING). */
export const DOC_TYPES: Record<string, PyType> = {
  string: "str",
  integer: "int",
  float: "float",
  boolean: "bool",
  array: "list",
  tuple: "list",
  dict: "dict",
  any: "str",
};

interface Options {
  underscoreToDot: boolean;
}

const invalid = (errorType: string, ...errors: string[]): BfclCheck => ({
  valid: false,
  errorType,
  errors,
});
const VALID: BfclCheck = { valid: true, errors: [] };

/** BFCL's `ast_checker` for the Python categories. */
export function checkBfcl(
  docs: BfclFunctionDoc[],
  calls: BfclCall[],
  answers: BfclAnswer[],
  category: BfclCategory,
  options: Options,
): BfclCheck {
  const docFor = (name: string) => docs.find((d) => d.name === name)!; // grader.ts checked it exists
  if (category === "parallel" || category === "parallel_multiple") {
    return checkParallel(docFor, calls, answers, options);
  }
  if (calls.length !== answers.length || calls.length !== 1) {
    const checker =
      category === "multiple" ? "multiple_function_checker" : "simple_function_checker";
    return invalid(`${checker}:wrong_count`, `expected 1 call, got ${calls.length}`);
  }
  const doc = category === "simple" ? docs[0]! : docFor(answers[0]!.name);
  return checkCall(doc, calls[0]!, answers[0]!, options);
}

function checkParallel(
  docFor: (name: string) => BfclFunctionDoc,
  calls: BfclCall[],
  answers: BfclAnswer[],
  options: Options,
): BfclCheck {
  if (calls.length !== answers.length) {
    return invalid(
      "parallel_function_checker_no_order:wrong_count",
      `expected ${answers.length} calls, got ${calls.length}`,
    );
  }
  const used = new Set<number>();
  for (const [i, answer] of answers.entries()) {
    const doc = docFor(answer.name);
    const misses: string[] = [];
    const match = calls.findIndex((call, j) => {
      if (used.has(j)) return false;
      const result = checkCall(doc, call, answer, options);
      if (!result.valid) misses.push(`call ${j}: ${result.errorType}: ${result.errors.join(" ")}`);
      return result.valid;
    });
    if (match < 0) {
      return invalid(
        "parallel_function_checker_no_order:cannot_find_match",
        `no unmatched call fits answer ${i} (${answer.name})`,
        ...misses,
      );
    }
    used.add(match);
  }
  return VALID;
}

/** BFCL's `simple_function_checker`: one call against one answer and its function doc. */
function checkCall(doc: BfclFunctionDoc, call: BfclCall, answer: BfclAnswer, options: Options) {
  const name = options.underscoreToDot ? doc.name.replace(/\./g, "_") : doc.name;
  if (call.name !== name) {
    return invalid(
      "simple_function_checker:wrong_func_name",
      `expected a call of ${name}, got ${call.name}`,
    );
  }
  const given = new Map(call.args);
  const acceptable = new Map(answer.params.map(([p, values]) => [p, pyList(values.map(fromJson))]));
  for (const param of doc.parameters.required) {
    if (!given.has(param)) {
      return invalid(
        "simple_function_checker:missing_required",
        `missing required parameter ${param}`,
      );
    }
  }
  for (const [param, value] of call.args) {
    const schema = doc.parameters.properties[param];
    const allowed = acceptable.get(param);
    if (schema === undefined || allowed === undefined) {
      return invalid("simple_function_checker:unexpected_param", `unexpected parameter ${param}`);
    }
    const problem = checkParam(param, value, allowed, schema);
    if (problem) return problem;
  }
  for (const [param, allowed] of acceptable) {
    if (!given.has(param) && !pyIn(pyStr(""), allowed)) {
      return invalid(
        "simple_function_checker:missing_optional",
        `parameter ${param} is missing and the answer does not mark it optional`,
      );
    }
  }
  return VALID;
}

/** One parameter's type and value; undefined when it passes. */
function checkParam(
  param: string,
  raw: PyVal,
  allowed: PyVal,
  schema: { type: string; items?: { type: string } },
): BfclCheck | undefined {
  const expected = DOC_TYPES[schema.type]!;
  const nested =
    schema.type === "array" || schema.type === "tuple" ? DOC_TYPES[schema.items!.type]! : undefined;
  let value = raw;
  if (schema.type === "tuple" && value.t === "tuple") value = pyList(value.v);
  if (schema.type === "float" && value.t === "int") value = { t: "float", v: Number(value.v) };
  const typed = checkType(param, value, allowed, schema.type, expected, nested);
  if (!typed.valid) return typed;
  if (!typed.isVariable) {
    if (expected === "dict") return asProblem(checkDict(param, value, pyItems(allowed)));
    if (expected === "list" && nested === "dict")
      return asProblem(checkListOfDicts(value, pyItems(allowed)));
    if (expected === "str") return asProblem(checkString(param, value, allowed));
    if (expected === "list") return asProblem(checkList(param, value, allowed));
  }
  if (!pyIn(value, allowed)) {
    return invalid(
      "value_error:others",
      `invalid value for ${param}: ${pyRepr(value)}; expected one of ${pyRepr(allowed)}`,
    );
  }
  return undefined;
}

const asProblem = (check: BfclCheck): BfclCheck | undefined => (check.valid ? undefined : check);

/**
 * The type of the first acceptable value that is not "" (the optional marker), or undefined when
 * there is none. An integral JSON number reads as an int (see the header).
 */
function answerType(allowed: PyVal): PyType | undefined {
  const first = pyItems(allowed).find((v) => !(v.t === "str" && v.v === ""));
  return first === undefined ? undefined : pyType(first);
}

type TypeCheck = BfclCheck & { isVariable: boolean };

/** BFCL's `type_checker` (nested types checked one level deep). */
function checkType(
  param: string,
  value: PyVal,
  allowed: PyVal,
  description: string,
  expected: PyType,
  nested: PyType | undefined,
): TypeCheck {
  const fromAnswer = answerType(allowed);
  const isVariable = fromAnswer !== undefined && fromAnswer !== expected;
  let errorType = "type_error:simple";
  const errors: string[] = [];
  if (pyType(value) === expected) {
    if (nested === undefined) return { ...VALID, isVariable };
    for (const item of pyItems(allowed)) {
      const fits =
        item.t !== "list" ||
        pyItems(value).every((v) => checkType(param, v, item, nested, nested, undefined).valid);
      if (fits) return { ...VALID, isVariable };
    }
    errorType = "type_error:nested";
    errors.push(
      `${param}: not every item of ${pyRepr(value)} is a ${nested} (${description} of ${nested})`,
    );
  }
  if (fromAnswer !== undefined && pyType(value) === fromAnswer) {
    // A variable; after a failed nested check BFCL keeps the failure (and its type).
    return {
      valid: errors.length === 0,
      errorType: errors.length ? errorType : undefined,
      errors,
      isVariable: true,
    };
  }
  errors.push(`${param} should be of type ${description}, got ${pyType(value)}: ${pyRepr(value)}`);
  return { valid: false, errorType: "type_error:simple", errors, isVariable: false };
}

/** BFCL's `standardize_string`. */
function standardize(s: string): string {
  return s
    .replace(/[ ,./\-_*^]/g, "")
    .toLowerCase()
    .replace(/'/g, '"');
}

const standardized = (v: PyVal): PyVal => (v.t === "str" ? pyStr(standardize(v.v)) : v);

/** BFCL's `string_checker`: the standardised string among the standardised acceptable strings. */
function checkString(param: string, value: PyVal, allowed: PyVal): BfclCheck {
  const want = standardize((value as { v: string }).v);
  const ok = pyItems(allowed).some((a) => a.t === "str" && standardize(a.v) === want);
  if (ok) return VALID;
  return invalid(
    "value_error:string",
    `invalid value for ${param}: ${pyRepr(value)}; expected one of ${pyRepr(allowed)} (case-insensitive)`,
  );
}

/** BFCL's `list_checker`: the list, its strings standardised, equal to an acceptable list. */
function checkList(param: string, value: PyVal, allowed: PyVal): BfclCheck {
  const got = pyList(pyItems(value).map(standardized));
  const ok = pyItems(allowed).some((a) => pyEq(got, pyList(pyItems(a).map(standardized))));
  if (ok) return VALID;
  return invalid(
    "value_error:list/tuple",
    `invalid value for ${param}: ${pyRepr(value)}; expected one of ${pyRepr(allowed)}`,
  );
}

/**
 * BFCL's `dict_checker`: the dict against each acceptable dict ("" skipped) until one fits. Both
 * of its passes run for each candidate (unexpected/wrong keys, then missing ones), so the error
 * type reported is the last one found, as in BFCL.
 */
function checkDict(param: string, value: PyVal, candidates: PyVal[]): BfclCheck {
  let result = invalid("dict_checker:unclear", `${param}: no acceptable dict to compare with`);
  for (const candidate of candidates) {
    if (candidate.t === "str" && candidate.v === "") continue;
    result = { valid: false, errorType: "dict_checker:unclear", errors: [] };
    let fits = true;
    for (const [key, v] of value.t === "dict" ? value.v : []) {
      const acceptable = dictGet(candidate, key);
      if (acceptable === undefined) {
        result.errors.push(`unexpected key ${pyRepr(key)} in ${param}`);
        result.errorType = "value_error:dict_key";
        fits = false;
        break;
      }
      if (!pyItems(acceptable).some((a) => pyEq(standardized(v), standardized(a)))) {
        result.errors.push(`invalid value for key ${pyRepr(key)} of ${param}: ${pyRepr(v)}`);
        result.errorType = "value_error:dict_value";
        fits = false;
        break;
      }
    }
    for (const [key, acceptable] of candidate.t === "dict" ? candidate.v : []) {
      if (dictGet(value, key) === undefined && !pyIn(pyStr(""), acceptable)) {
        result.errors.push(`missing key ${pyRepr(key)} in ${param}`);
        result.errorType = "value_error:dict_key";
        fits = false;
        break;
      }
    }
    if (fits) return VALID;
  }
  return result;
}

/** BFCL's `list_dict_checker`: a list of dicts against acceptable lists, dict by dict in order. */
function checkListOfDicts(value: PyVal, candidates: PyVal[]): BfclCheck {
  let result = invalid("list_dict_checker:unclear", "no acceptable list of dicts to compare with");
  const dicts = pyItems(value);
  for (const candidate of candidates) {
    const expected = pyItems(candidate);
    if (dicts.length !== expected.length) {
      result = invalid("value_error:list_dict_count", "wrong number of dicts in the list");
      continue;
    }
    let fits = true;
    for (const [i, d] of dicts.entries()) {
      result = checkDict(`item ${i}`, d, [expected[i]!]);
      if (!result.valid) {
        fits = false;
        break;
      }
    }
    if (fits) return VALID;
  }
  return result;
}
