import assert from "node:assert/strict";
import { test } from "node:test";
import type { Task } from "../../types/index.js";
import { bfclGrader } from "./grader.js";

// Rows of BFCL_v4 (gorilla 6ea57973c7a6, bfcl_eval/data), descriptions dropped: simple_python_0,
// multiple_0 (two of its functions), parallel_0 and parallel_multiple_0.
const triangleArea = {
  name: "calculate_triangle_area",
  parameters: {
    type: "dict",
    properties: {
      base: { type: "integer" },
      height: { type: "integer" },
      unit: { type: "string" },
    },
    required: ["base", "height"],
  },
};
const simple0 = {
  category: "simple",
  functions: [triangleArea],
  groundTruth: [{ calculate_triangle_area: { base: [10], height: [5], unit: ["units", ""] } }],
};
const multiple0 = {
  category: "multiple",
  functions: [
    {
      name: "triangle_properties.get",
      parameters: {
        type: "dict",
        properties: {
          side1: { type: "integer" },
          side2: { type: "integer" },
          side3: { type: "integer" },
          get_area: { type: "boolean" },
        },
        required: ["side1", "side2", "side3"],
      },
    },
    {
      name: "circle_properties.get",
      parameters: {
        type: "dict",
        properties: { radius: { type: "float" }, get_area: { type: "boolean" } },
        required: ["radius"],
      },
    },
  ],
  groundTruth: [
    { "triangle_properties.get": { side1: [5], side2: [4], side3: [3], get_area: ["", true] } },
  ],
};
const parallel0 = {
  category: "parallel",
  functions: [
    {
      name: "spotify.play",
      parameters: {
        type: "dict",
        properties: { artist: { type: "string" }, duration: { type: "integer" } },
        required: ["artist", "duration"],
      },
    },
  ],
  groundTruth: [
    { "spotify.play": { artist: ["Taylor Swift"], duration: [20] } },
    { "spotify.play": { artist: ["Maroon 5"], duration: [15] } },
  ],
};
const parallelMultiple0 = {
  category: "parallel_multiple",
  functions: [
    {
      name: "math_toolkit.sum_of_multiples",
      parameters: {
        type: "dict",
        properties: {
          lower_limit: { type: "integer" },
          upper_limit: { type: "integer" },
          multiples: { type: "array", items: { type: "integer" } },
        },
        required: ["lower_limit", "upper_limit", "multiples"],
      },
    },
    {
      name: "math_toolkit.product_of_primes",
      parameters: { type: "dict", properties: { count: { type: "integer" } }, required: ["count"] },
    },
  ],
  groundTruth: [
    {
      "math_toolkit.sum_of_multiples": {
        lower_limit: [1],
        upper_limit: [1000],
        multiples: [[3, 5]],
      },
    },
    { "math_toolkit.product_of_primes": { count: [5] } },
  ],
};

/** A one-function simple task with the given parameter schema and acceptable values. */
function oneParam(type: Record<string, unknown>, acceptable: unknown[], required = true) {
  return {
    category: "simple",
    functions: [
      {
        name: "f",
        parameters: { type: "dict", properties: { x: type }, required: required ? ["x"] : [] },
      },
    ],
    groundTruth: [{ f: { x: acceptable } }],
  };
}

function verdict(data: Record<string, unknown>, response: string, underscoreToDot = false) {
  const task: Task = { id: "bfcl-test", data };
  const out = bfclGrader({ underscoreToDot })(task, response);
  assert.ok(!(out instanceof Promise));
  return (out.metadata?.["errorType"] as string | undefined) ?? (out.reward === 1 ? "valid" : "?");
}

test("simple: the right call passes; an optional parameter may be omitted or given", () => {
  assert.equal(verdict(simple0, "[calculate_triangle_area(base=10, height=5)]"), "valid");
  assert.equal(
    verdict(simple0, "calculate_triangle_area(height=5, base=10, unit='units')"),
    "valid",
  );
  assert.equal(
    verdict(simple0, "[calculate_triangle_area(base=10, height=5, unit='Units')]"),
    "valid",
  );
});

test("simple: one error type per check", () => {
  const cases: [string, string][] = [
    ["[]", "simple_function_checker:wrong_count"],
    [
      "[calculate_triangle_area(base=10, height=5), calculate_triangle_area(base=10, height=5)]",
      "simple_function_checker:wrong_count",
    ],
    ["[triangle_area(base=10, height=5)]", "simple_function_checker:wrong_func_name"],
    ["[calculate_triangle_area(base=10)]", "simple_function_checker:missing_required"],
    ["[calculate_triangle_area(10, 5)]", "simple_function_checker:missing_required"],
    [
      "[calculate_triangle_area(base=10, height=5, color='red')]",
      "simple_function_checker:unexpected_param",
    ],
    ["[calculate_triangle_area(base=10.0, height=5)]", "type_error:simple"],
    ["[calculate_triangle_area(base='10', height=5)]", "type_error:simple"],
    ["[calculate_triangle_area(base=True, height=5)]", "type_error:simple"],
    ["[calculate_triangle_area(base=11, height=5)]", "value_error:others"],
    ["[calculate_triangle_area(base=10, height=5, unit='cm')]", "value_error:string"],
    ["The area is 25.", "ast_decoder:decoder_failed"],
  ];
  for (const [response, errorType] of cases)
    assert.equal(verdict(simple0, response), errorType, response);
});

test("multiple: one call of the answer's function among several offered", () => {
  assert.equal(verdict(multiple0, "[triangle_properties.get(side1=5, side2=4, side3=3)]"), "valid");
  assert.equal(
    verdict(multiple0, "[triangle_properties.get(side1=5, side2=4, side3=3, get_area=True)]"),
    "valid",
  );
  assert.equal(
    verdict(multiple0, "[circle_properties.get(radius=5.0)]"),
    "simple_function_checker:wrong_func_name",
  );
  assert.equal(verdict(multiple0, "[]"), "multiple_function_checker:wrong_count");
  // The "." → "_" rule applies only where asked (tool APIs that forbid dots in names).
  assert.equal(
    verdict(multiple0, "[triangle_properties_get(side1=5, side2=4, side3=3)]"),
    "simple_function_checker:wrong_func_name",
  );
  assert.equal(
    verdict(multiple0, "[triangle_properties_get(side1=5, side2=4, side3=3)]", true),
    "valid",
  );
  assert.equal(
    verdict(multiple0, "[triangle_properties.get(side1=5, side2=4, side3=3)]", true),
    "simple_function_checker:wrong_func_name",
  );
});

test("parallel: every answer matched by its own call, in any order, none reused", () => {
  const taylor = "spotify.play(artist='Taylor Swift', duration=20)";
  const maroon = "spotify.play(artist='Maroon 5', duration=15)";
  assert.equal(verdict(parallel0, `[${taylor}, ${maroon}]`), "valid");
  assert.equal(verdict(parallel0, `[${maroon}, ${taylor}]`), "valid");
  assert.equal(verdict(parallel0, `${maroon}, ${taylor}`), "valid");
  assert.equal(
    verdict(parallel0, `[spotify.play(artist='taylorswift', duration=20), ${maroon}]`),
    "valid",
  );
  assert.equal(verdict(parallel0, `[${taylor}]`), "parallel_function_checker_no_order:wrong_count");
  assert.equal(
    verdict(parallel0, `[${taylor}, ${taylor}]`),
    "parallel_function_checker_no_order:cannot_find_match",
  );
  assert.equal(
    verdict(parallel0, `[${taylor}, spotify.play(artist='Maroon 5', duration=16)]`),
    "parallel_function_checker_no_order:cannot_find_match",
  );
});

test("parallel_multiple: several functions, several calls, any order; the errors name each miss", () => {
  const sum = "math_toolkit.sum_of_multiples(lower_limit=1, upper_limit=1000, multiples=[3, 5])";
  const product = "math_toolkit.product_of_primes(count=5)";
  assert.equal(verdict(parallelMultiple0, `[${sum}, ${product}]`), "valid");
  assert.equal(verdict(parallelMultiple0, `[${product}, ${sum}]`), "valid");
  const out = bfclGrader()({ id: "t", data: parallelMultiple0 }, `[${product}, ${product}]`);
  assert.ok(!(out instanceof Promise));
  assert.equal(out.metadata?.["errorType"], "parallel_function_checker_no_order:cannot_find_match");
  assert.deepEqual(out.metadata?.["errors"], [
    "no unmatched call fits answer 0 (math_toolkit.sum_of_multiples)",
    "call 0: simple_function_checker:wrong_func_name: expected a call of math_toolkit.sum_of_multiples, got math_toolkit.product_of_primes",
    "call 1: simple_function_checker:wrong_func_name: expected a call of math_toolkit.sum_of_multiples, got math_toolkit.product_of_primes",
  ]);
  // Lists compare in order, their strings standardised.
  assert.equal(
    verdict(parallelMultiple0, `[${sum.replace("[3, 5]", "[5, 3]")}, ${product}]`),
    "parallel_function_checker_no_order:cannot_find_match",
  );
});

test("types: int for float, tuple for tuple, nested item types, variables, any", () => {
  const float = oneParam({ type: "float" }, [5.0]);
  assert.equal(verdict(float, "f(x=5)"), "valid");
  assert.equal(verdict(float, "f(x=5.0)"), "valid");
  assert.equal(verdict(float, "f(x='5')"), "type_error:simple");
  const tuple = oneParam({ type: "tuple", items: { type: "integer" } }, [[1, 2]]);
  assert.equal(verdict(tuple, "f(x=(1, 2))"), "valid");
  assert.equal(verdict(tuple, "f(x=[1, 2])"), "valid");
  assert.equal(verdict(tuple, "f(x=(2, 1))"), "value_error:list/tuple");
  const strings = oneParam({ type: "array", items: { type: "string" } }, [["New York", "LA"]]);
  assert.equal(verdict(strings, "f(x=['new york', 'L.A.'])"), "valid");
  assert.equal(verdict(strings, "f(x=('New York', 'LA'))"), "type_error:simple");
  assert.equal(verdict(strings, "f(x=[1, 2])"), "type_error:nested");
  assert.equal(verdict(strings, "f(x=['LA', 'New York'])"), "value_error:list/tuple");
  // A value of the answer's type, not the doc's, is a "variable" and compared as is.
  const variable = oneParam({ type: "integer" }, ["n_items"]);
  assert.equal(verdict(variable, "f(x='n_items')"), "valid");
  assert.equal(verdict(variable, "f(x=n_items)"), "valid");
  assert.equal(verdict(variable, "f(x='N_items')"), "value_error:others");
  const any = oneParam({ type: "any" }, ["yes", 3]);
  assert.equal(verdict(any, "f(x='YES')"), "valid");
  assert.equal(verdict(any, "f(x=3)"), "type_error:simple"); // "any" is str; 3 is not the first answer's type
  const bool = oneParam({ type: "boolean" }, [true]);
  assert.equal(verdict(bool, "f(x=True)"), "valid");
  assert.equal(verdict(bool, "f(x=1)"), "type_error:simple");
  // The answer's first value is None, so None passes as a "variable" (BFCL's rule), 2.5 by type.
  const none = oneParam({ type: "float" }, [null, 2.5]);
  assert.equal(verdict(none, "f(x=None)"), "valid");
  assert.equal(verdict(none, "f(x=2.5)"), "valid");
  assert.equal(verdict(none, "f(x='2.5')"), "type_error:simple");
});

test("strings are standardised: case, spaces and ,./-_*^ ignored, ' read as \"", () => {
  const date = oneParam({ type: "string" }, ["April 1, 2024"]);
  for (const ok of ["April 1 2024", "april 1,2024", "APRIL-1-2024", "April_1.2024"]) {
    assert.equal(verdict(date, `f(x='${ok}')`), "valid", ok);
  }
  assert.equal(verdict(date, "f(x='April 2, 2024')"), "value_error:string");
  const quote = oneParam({ type: "string" }, ['say "hi"']);
  assert.equal(verdict(quote, `f(x="say 'hi'")`), "valid");
});

test('dicts: keys checked against the answer\'s, values among the acceptable ones, "" keys optional', () => {
  const dict = oneParam({ type: "dict" }, [{ name: ["John Doe"], email: ["j@x.com", ""] }]);
  assert.equal(verdict(dict, "f(x={'name': 'john doe', 'email': 'j@x.com'})"), "valid");
  assert.equal(verdict(dict, "f(x={'name': 'John Doe'})"), "valid");
  assert.equal(verdict(dict, "f(x={'email': 'j@x.com'})"), "value_error:dict_key");
  assert.equal(verdict(dict, "f(x={'name': 'John Doe', 'age': 3})"), "value_error:dict_key");
  assert.equal(verdict(dict, "f(x={'name': 'Jane'})"), "value_error:dict_value");
  assert.equal(verdict(dict, "f(x=[{'name': 'John Doe'}])"), "type_error:simple");
  const onlyOptional = oneParam({ type: "dict" }, [""], false);
  assert.equal(verdict(onlyOptional, "f()"), "valid");
  assert.equal(verdict(onlyOptional, "f(x={'a': 1})"), "dict_checker:unclear");
  const listOfDicts = oneParam({ type: "array", items: { type: "dict" } }, [
    [
      { field: ["age"], value: ["25"] },
      { field: ["job"], value: ["engineer", "eng"] },
    ],
  ]);
  assert.equal(
    verdict(
      listOfDicts,
      "f(x=[{'field': 'age', 'value': '25'}, {'field': 'job', 'value': 'eng'}])",
    ),
    "valid",
  );
  assert.equal(
    verdict(listOfDicts, "f(x=[{'field': 'age', 'value': '25'}])"),
    "value_error:list_dict_count",
  );
  assert.equal(
    verdict(
      listOfDicts,
      "f(x=[{'field': 'job', 'value': 'eng'}, {'field': 'age', 'value': '25'}])",
    ),
    "value_error:dict_value",
  );
});

test('an answer parameter the call omits must be marked optional with ""', () => {
  const data = oneParam({ type: "integer" }, [3], false);
  assert.equal(verdict(data, "f(x=3)"), "valid");
  assert.equal(verdict(data, "f()"), "simple_function_checker:missing_optional");
});
