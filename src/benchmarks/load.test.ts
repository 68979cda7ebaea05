import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { fakeHub, fileRoute, jsonRoute, unreachableHubUrl } from "../testing/fake-hub.js";
import { type DownloadProgress, downloadSplit, hubCacheDir } from "./hub.js";
import { loadBenchmark, parseTaskIndices } from "./load.js";
import { loadRows } from "./rows.js";

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
/** A few real rows of each dataset, laid out as --data-dir reads them (fixtures/data/SOURCE.md). */
const dataDir = fixture("data");

let tmp: string;
before(async () => {
  tmp = await mkdtemp(join(tmpdir(), "rllm-benchmarks-"));
});
after(async () => {
  await rm(tmp, { recursive: true, force: true });
});

const rowsA = [
  { question: "1 + 1?", answer: "2" },
  { question: "2 + 2?", answer: "4" },
];

test("loadRows reads .jsonl, skipping blank lines", async () => {
  const path = join(tmp, "a.jsonl");
  await writeFile(path, `${JSON.stringify(rowsA[0])}\n\n${JSON.stringify(rowsA[1])}\n`);
  assert.deepEqual(await loadRows(path), rowsA);
});

test("loadRows reads .jsonl.gz", async () => {
  const path = join(tmp, "a.jsonl.gz");
  await writeFile(path, gzipSync(rowsA.map((r) => JSON.stringify(r)).join("\n")));
  assert.deepEqual(await loadRows(path), rowsA);
});

test("loadRows reads .json as an array or as {data: [...]}", async () => {
  const array = join(tmp, "array.json");
  const wrapped = join(tmp, "wrapped.json");
  await writeFile(array, JSON.stringify(rowsA));
  await writeFile(wrapped, JSON.stringify({ version: 1, data: rowsA }));
  assert.deepEqual(await loadRows(array), rowsA);
  assert.deepEqual(await loadRows(wrapped), rowsA);
  const bad = join(tmp, "bad.json");
  await writeFile(bad, JSON.stringify({ rows: rowsA }));
  await assert.rejects(
    loadRows(bad),
    /bad\.json: expected a JSON array of rows or an object \{"data": \[\.\.\.\]\}/,
  );
  await writeFile(bad, JSON.stringify([{ a: 1 }, 7]));
  await assert.rejects(loadRows(bad), /bad\.json: row 1 is not a JSON object/);
});

test("loadRows reads snappy Parquet as plain objects (INT64 as numbers, nested lists kept)", async () => {
  const gsm8k = await loadRows(fixture("gsm8k-test.parquet"));
  assert.equal(gsm8k.length, 5);
  assert.deepEqual(Object.keys(gsm8k[0]!), ["question", "answer"]);
  assert.match(gsm8k[0]!.answer as string, /#### 18$/);

  const math = await loadRows(fixture("math500-test.parquet"));
  assert.equal(math.length, 4);
  assert.equal(math[0]!.level, 2, "INT64 becomes a plain number");
  assert.equal(math[0]!.unique_id, "test/precalculus/807.json");

  const hotpot = await loadRows(fixture("hotpotqa-validation.parquet"));
  assert.equal(hotpot.length, 2);
  const context = hotpot[0]!.context as { title: string[]; sentences: string[][] };
  assert.equal(context.title[0], "Meet Corliss Archer");
  assert.equal(context.sentences.length, 10);
  assert.deepEqual(hotpot[0]!.supporting_facts, {
    title: ["Kiss and Tell (1945 film)", "Shirley Temple", "Shirley Temple"],
    sent_id: [0, 0, 1],
  });
  assert.doesNotThrow(() => JSON.stringify(hotpot));
});

test("loadRows on a folder reads every supported file in name order and ignores the rest", async () => {
  const dir = join(tmp, "folder");
  await mkdir(dir);
  await writeFile(join(dir, "b.jsonl"), `${JSON.stringify({ n: 3 })}\n`);
  await writeFile(join(dir, "a.json"), JSON.stringify([{ n: 1 }, { n: 2 }]));
  await writeFile(join(dir, "c.jsonl.gz"), gzipSync(JSON.stringify({ n: 4 })));
  await writeFile(join(dir, "README.md"), "# not data");
  assert.deepEqual(
    (await loadRows(dir)).map((r) => r.n),
    [1, 2, 3, 4],
  );
  const empty = join(tmp, "empty-folder");
  await mkdir(empty);
  await writeFile(join(empty, "notes.txt"), "nothing");
  await assert.rejects(
    loadRows(empty),
    /empty-folder: folder holds no \.jsonl, \.jsonl\.gz, \.parquet, \.json files/,
  );
});

test("a malformed JSONL line is reported with its file and line number", async () => {
  const path = join(tmp, "broken.jsonl");
  await writeFile(
    path,
    `${JSON.stringify(rowsA[0])}\n${JSON.stringify(rowsA[1])}\n{"question": "3 + 3?",\n`,
  );
  await assert.rejects(loadRows(path), (error: Error) => {
    assert.ok(error.message.startsWith(`${path}: line 3 is not valid JSON`), error.message);
    return true;
  });
  await writeFile(path, `${JSON.stringify(rowsA[0])}\n[1, 2]\n`);
  await assert.rejects(loadRows(path), /broken\.jsonl: line 2 is not a JSON object/);
});

test("empty, missing and unreadable inputs give clear errors", async () => {
  const empty = join(tmp, "empty.jsonl");
  await writeFile(empty, "\n\n");
  await assert.rejects(loadRows(empty), /empty\.jsonl: no rows \(the file is empty\)/);
  await assert.rejects(
    loadRows(join(tmp, "absent.jsonl")),
    /absent\.jsonl: no such file or folder/,
  );
  const notGzip = join(tmp, "plain.jsonl.gz");
  await writeFile(notGzip, "{}");
  await assert.rejects(loadRows(notGzip), /plain\.jsonl\.gz: not a valid gzip file/);
  const notParquet = join(tmp, "text.parquet");
  await writeFile(notParquet, "this is not parquet at all");
  await assert.rejects(loadRows(notParquet), /text\.parquet: cannot read Parquet/);
  const csv = join(tmp, "rows.csv");
  await writeFile(csv, "a,b\n1,2\n");
  await assert.rejects(loadRows(csv), /rows\.csv: unsupported file type/);
});

test("parseTaskIndices reads lists and inclusive ranges", () => {
  assert.deepEqual(parseTaskIndices("0,3,7-9"), [0, 3, 7, 8, 9]);
  assert.deepEqual(parseTaskIndices(" 5 , 1-2 ,5"), [5, 1, 2], "order kept, repeats dropped");
  assert.deepEqual(parseTaskIndices("4-4"), [4]);
  assert.throws(() => parseTaskIndices(""), /Invalid task indices "": empty/);
  assert.throws(() => parseTaskIndices("1,,2"), /an empty item/);
  assert.throws(() => parseTaskIndices("9-7"), /start 9 is after its end 7 in "9-7"/);
  assert.throws(() => parseTaskIndices("-1"), /not a non-negative integer or a range a-b in "-1"/);
  assert.throws(() => parseTaskIndices("a,2"), /in "a"\. Use a list like "0,3,7-9"/);
  assert.throws(() => parseTaskIndices("1.5"), /in "1\.5"/);
  assert.throws(() => parseTaskIndices("0-99999999999"), /more than 10000000 indices/);
});

test("loadBenchmark with dataDir: taskIndices keep row positions, maxExamples cuts", async () => {
  const picked = await loadBenchmark("gsm8k", {
    split: "test",
    dataDir,
    taskIndices: parseTaskIndices("7,3-4"),
  });
  assert.deepEqual(
    picked.map((t) => [t.id, t.index]),
    [
      ["gsm8k/test/7", 7],
      ["gsm8k/test/3", 3],
      ["gsm8k/test/4", 4],
    ],
  );
  assert.equal((await loadBenchmark("gsm8k", { dataDir, maxExamples: 7 })).length, 7);
  const both = await loadBenchmark("gsm8k", { dataDir, taskIndices: [9, 8, 7], maxExamples: 2 });
  assert.deepEqual(
    both.map((t) => t.index),
    [9, 8],
  );
  await assert.rejects(
    loadBenchmark("aime_2024", { dataDir, taskIndices: [2] }),
    /Task index 2 is out of range: .*has 2 rows \(0-1\)/,
  );
});

test("loadBenchmark with dataDir reads .jsonl.gz, .json and .parquet split files", async () => {
  const dir = join(tmp, "data-formats");
  await mkdir(join(dir, "gsm8k"), { recursive: true });
  await mkdir(join(dir, "math500"), { recursive: true });
  await mkdir(join(dir, "aime_2025"), { recursive: true });
  await copyFile(fixture("gsm8k-test.parquet"), join(dir, "gsm8k", "test.parquet"));
  await writeFile(
    join(dir, "gsm8k", "train.jsonl.gz"),
    gzipSync(
      `${JSON.stringify({ question: "How many legs has a cat?", answer: "Four.\n#### 4" })}\n`,
    ),
  );
  await copyFile(fixture("math500-test.parquet"), join(dir, "math500", "test.parquet"));
  await writeFile(
    join(dir, "aime_2025", "test.json"),
    JSON.stringify([{ id: "7", problem: "Find x.", answer: 9 }]),
  );

  const test_ = await loadBenchmark("gsm8k", { dataDir: dir });
  assert.equal(test_.length, 5);
  assert.equal(test_[0]!.data.answer, "18");
  const train = await loadBenchmark("gsm8k", { dataDir: dir, split: "train" });
  assert.deepEqual(train[0]!.data, {
    question: "How many legs has a cat?",
    answer: "4",
    solution: "Four.\n#### 4",
  });
  const math = await loadBenchmark("math500", { dataDir: dir });
  assert.equal(math[0]!.id, "math500/test/precalculus/807.json");
  assert.equal(math[0]!.data.level, 2);
  const aime = await loadBenchmark("aime_2025", { dataDir: dir });
  assert.deepEqual(aime, [
    {
      id: "aime_2025/7",
      dataSource: "aime_2025",
      index: 0,
      data: { question: "Find x.", answer: "9" },
    },
  ]);

  await assert.rejects(loadBenchmark("hotpotqa", { dataDir: dir }), (error: Error) => {
    assert.match(error.message, /No file for hotpotqa split "validation" under /);
    assert.ok(error.message.includes(join(dir, "hotpotqa", "validation.jsonl")), error.message);
    assert.match(error.message, /--data-dir DIR/);
    return true;
  });
  await assert.rejects(
    loadBenchmark("math500", { dataDir: dir, split: "train" }),
    (error: Error) => {
      assert.match(error.message, /math500 has no split "train"; its splits are: test/);
      return true;
    },
  );
  // A generated benchmark with no file under dataDir is generated.
  assert.equal((await loadBenchmark("countdown", { dataDir: dir, maxExamples: 2 })).length, 2);
});

test("the Hub cache lives at $RLLM_HOME/datasets/<hfDataset>/<config>/<split>.* and is read without network", async () => {
  const home = join(tmp, "rllm-home");
  const previous = process.env.RLLM_HOME;
  process.env.RLLM_HOME = home;
  try {
    const dir = join(home, "datasets", "openai", "gsm8k", "main");
    assert.equal(hubCacheDir("openai/gsm8k", "main"), dir);
    assert.equal(
      hubCacheDir("HuggingFaceH4/MATH-500", undefined),
      join(home, "datasets", "HuggingFaceH4", "MATH-500", "default"),
    );
    await mkdir(dir, { recursive: true });
    await writeFile(
      join(dir, "test.jsonl"),
      `${JSON.stringify({ question: "Q?", answer: "work\n#### 12" })}\n`,
    );
    // An unreachable Hub proves the cache was used: any download attempt would fail.
    const tasks = await loadBenchmark("gsm8k", { hubEndpoint: await unreachableHubUrl() });
    assert.deepEqual(tasks, [
      {
        id: "gsm8k/test/0",
        dataSource: "gsm8k",
        index: 0,
        data: { question: "Q?", answer: "12", solution: "work\n#### 12" },
      },
    ]);
    // A sharded split cached as a folder.
    const shards = join(home, "datasets", "hotpotqa", "hotpot_qa", "distractor", "validation");
    await mkdir(shards, { recursive: true });
    await copyFile(fixture("hotpotqa-validation.parquet"), join(shards, "00000.parquet"));
    await copyFile(fixture("hotpotqa-validation.parquet"), join(shards, "00001.parquet"));
    assert.equal((await loadBenchmark("hotpotqa", { offline: true })).length, 4);
  } finally {
    if (previous === undefined) delete process.env.RLLM_HOME;
    else process.env.RLLM_HOME = previous;
  }
});

test("no cache and an unreachable Hub: the error names the file looked for and --data-dir", async () => {
  const cacheDir = join(tmp, "empty-cache");
  const endpoint = await unreachableHubUrl();
  await assert.rejects(
    loadBenchmark("gsm8k", { split: "test", cacheDir, hubEndpoint: endpoint }),
    (error: Error) => {
      const message = error.message;
      assert.match(message, /^Cannot load gsm8k split "test": it is not in the dataset cache/);
      assert.ok(message.includes(join(cacheDir, "openai", "gsm8k", "main", "test")), message);
      assert.ok(message.includes(".jsonl,.jsonl.gz,.parquet,.json"), message);
      assert.ok(
        message.includes(
          `${endpoint}/datasets/openai/gsm8k/resolve/main/main/test-00000-of-00001.parquet`,
        ),
        message,
      );
      assert.match(message, /ECONNREFUSED|fetch failed/);
      assert.match(
        message,
        /pass --data-dir DIR .* where DIR\/gsm8k\/test\.jsonl holds one JSON row per line/,
      );
      return true;
    },
  );
  // Nothing half-written is left behind to pass for a cached split.
  assert.deepEqual(await readdir(cacheDir).catch(() => []), []);

  await assert.rejects(loadBenchmark("math500", { cacheDir, offline: true }), (error: Error) => {
    assert.match(
      error.message,
      /math500 split "test" is not in the dataset cache and offline mode is on/,
    );
    assert.ok(
      error.message.includes(join(cacheDir, "HuggingFaceH4", "MATH-500", "default", "test")),
    );
    assert.match(error.message, /--data-dir DIR/);
    return true;
  });
});

test("downloads from the Hub into the cache once: repo files, Parquet shards, and the conversion branch", async () => {
  const cacheDir = join(tmp, "download-cache");
  const hub = await fakeHub({
    "/datasets/openai/gsm8k/resolve/main/main/test-00000-of-00001.parquet": fileRoute(
      fixture("gsm8k-test.parquet"),
    ),
    "/api/datasets/hotpotqa/hotpot_qa/parquet/distractor/validation": jsonRoute((hubUrl) =>
      [0, 1].map((i) => `${hubUrl}/shards/hotpot/${i}.parquet`),
    ),
    "/shards/hotpot/0.parquet": fileRoute(fixture("hotpotqa-validation.parquet")),
    "/shards/hotpot/1.parquet": fileRoute(fixture("hotpotqa-validation.parquet")),
    // No listing for aime_2024: the loader falls back to the conversion branch, under the Hub's
    // split name ("train") for our "test".
    "/datasets/HuggingFaceH4/aime_2024/resolve/refs%2Fconvert%2Fparquet/default/train/0000.parquet":
      fileRoute(fixture("math500-test.parquet")),
  });
  try {
    const gsm8k = await loadBenchmark("gsm8k", { cacheDir, hubEndpoint: hub.url });
    assert.equal(gsm8k.length, 5);
    assert.ok(existsSync(join(cacheDir, "openai", "gsm8k", "main", "test.parquet")));

    const hotpot = await loadBenchmark("hotpotqa", { cacheDir, hubEndpoint: hub.url });
    assert.equal(hotpot.length, 4);
    assert.deepEqual(
      await readdir(join(cacheDir, "hotpotqa", "hotpot_qa", "distractor", "validation")),
      ["00000.parquet", "00001.parquet"],
    );

    const aime = await loadBenchmark("aime_2024", { cacheDir, hubEndpoint: hub.url });
    assert.equal(aime.length, 4);
    assert.equal(aime[0]!.id, "aime_2024/test/0");
    assert.ok(existsSync(join(cacheDir, "HuggingFaceH4", "aime_2024", "default", "test.parquet")));

    // Second loads hit the cache: no new requests.
    const asked = hub.requests.length;
    await loadBenchmark("gsm8k", { cacheDir, hubEndpoint: hub.url });
    await loadBenchmark("hotpotqa", { cacheDir, hubEndpoint: hub.url });
    await loadBenchmark("aime_2024", { cacheDir, hubEndpoint: hub.url });
    assert.equal(hub.requests.length, asked);
  } finally {
    await hub.close();
  }
});

test("a Hub HTTP error is reported with the URL and status", async () => {
  const cacheDir = join(tmp, "http-error-cache");
  const hub = await fakeHub({
    "/datasets/HuggingFaceH4/MATH-500/resolve/main/test.jsonl": async () => ({
      status: 403,
      body: "gated",
    }),
  });
  try {
    await assert.rejects(
      loadBenchmark("math500", { cacheDir, hubEndpoint: hub.url }),
      (error: Error) => {
        assert.ok(
          error.message.includes(
            `${hub.url}/datasets/HuggingFaceH4/MATH-500/resolve/main/test.jsonl: HTTP 403`,
          ),
        );
        assert.match(error.message, /set HF_TOKEN/);
        assert.match(error.message, /--data-dir DIR/);
        return true;
      },
    );
  } finally {
    await hub.close();
  }
});

test("a download cut off midway is reported with the URL, and nothing half-written passes for cached", async () => {
  const cacheDir = join(tmp, "cut-cache");
  const parquet = await readFile(fixture("gsm8k-test.parquet"));
  const path = "/datasets/openai/gsm8k/resolve/main/main/test-00000-of-00001.parquet";
  const hub = await fakeHub({ [path]: () => ({ body: parquet, cutAfter: 100 }) });
  try {
    const cut = (error: Error) => {
      assert.ok(error.message.includes(`${hub.url}${path}: the download broke off`), error.message);
      assert.match(
        error.message,
        /^Cannot load gsm8k split "test": it is not in the dataset cache/,
      );
      return true;
    };
    await assert.rejects(loadBenchmark("gsm8k", { cacheDir, hubEndpoint: hub.url }), cut);
    // Streamed with progress: the reports stop short of the announced total and never say done.
    const seen: DownloadProgress[] = [];
    const onProgress = (p: DownloadProgress) => seen.push(p);
    await assert.rejects(
      loadBenchmark("gsm8k", { cacheDir, hubEndpoint: hub.url, onProgress }),
      cut,
    );
    assert.ok(seen.length > 0 && seen.every((p) => !p.done && p.total === parquet.length));
    assert.ok(seen.at(-1)!.received < parquet.length);
    assert.equal(hub.requests.filter((r) => r === path).length, 2);
    assert.deepEqual(await readdir(join(cacheDir, "openai", "gsm8k", "main")).catch(() => []), []);
  } finally {
    await hub.close();
  }
});

test("a download that is not a whole Parquet file (cut short, a proxy's page) is never cached", async () => {
  const cacheDir = join(tmp, "truncated-cache");
  const whole = await readFile(fixture("gsm8k-test.parquet"));
  let body: Buffer | string = whole.subarray(0, Math.floor(whole.length / 2));
  const hub = await fakeHub({
    "/datasets/openai/gsm8k/resolve/main/main/test-00000-of-00001.parquet": async () => ({ body }),
  });
  const cached = join(cacheDir, "openai", "gsm8k", "main", "test.parquet");
  try {
    for (const bad of [body, "<html>Sign in to the proxy</html>"]) {
      body = bad;
      await assert.rejects(
        loadBenchmark("gsm8k", { cacheDir, hubEndpoint: hub.url }),
        (error: Error) => {
          assert.match(error.message, /test-00000-of-00001\.parquet: not a whole Parquet file/);
          return true;
        },
      );
      assert.equal(existsSync(cached), false, "nothing cached");
    }
    body = whole; // the next try downloads it again and succeeds
    assert.equal((await loadBenchmark("gsm8k", { cacheDir, hubEndpoint: hub.url })).length, 5);
    assert.ok(existsSync(cached));
  } finally {
    await hub.close();
  }
});

test("loadRows reads a .json file of one object per line (BFCL's) and still reports a broken document", async () => {
  const lines = join(tmp, "lines.json");
  await writeFile(lines, rowsA.map((r) => JSON.stringify(r)).join("\n"));
  assert.deepEqual(await loadRows(lines), rowsA);
  const broken = join(tmp, "broken.json");
  await writeFile(broken, '[{"a": 1},\n{"b": ');
  await assert.rejects(loadRows(broken), /broken\.json: not valid JSON/);
});

test("an all-configs split is cached as one folder of every config; offline without it, the error names that folder", async () => {
  const cacheDir = join(tmp, "configs-cache");
  await assert.rejects(
    loadBenchmark("hendrycks_math", { cacheDir, offline: true }),
    (error: Error) => {
      assert.match(
        error.message,
        /hendrycks_math split "test" is not in the dataset cache and offline mode is on/,
      );
      assert.ok(
        error.message.includes(
          join(cacheDir, "EleutherAI", "hendrycks_math", "all-configs", "test"),
        ),
        error.message,
      );
      return true;
    },
  );
  const folder = join(cacheDir, "EleutherAI", "hendrycks_math", "all-configs", "test");
  await mkdir(folder, { recursive: true });
  const row = (problem: string, type: string) =>
    `${JSON.stringify({ problem, solution: `so \\boxed{${problem.length}}`, type })}\n`;
  await writeFile(join(folder, "prealgebra.00000.jsonl"), row("2+2?", "Prealgebra"));
  await writeFile(join(folder, "algebra.00000.jsonl"), row("x+1=2?", "Algebra"));
  const tasks = await loadBenchmark("hendrycks_math", { cacheDir, offline: true });
  assert.deepEqual(
    tasks.map((t) => [t.index, t.data.type, t.data.subject]),
    [
      [0, "Algebra", undefined],
      [1, "Prealgebra", undefined],
    ],
    "configs in name order; no column given, so rows are taken as they are",
  );
});

test("a companion file is looked for beside the split in --data-dir; repeated join keys are an error", async () => {
  const dir = join(tmp, "companion-data");
  await mkdir(join(dir, "bfcl"), { recursive: true });
  const question = {
    id: "simple_0",
    question: [[{ role: "user", content: "Weather in Oslo?" }]],
    function: [{ name: "w", description: "d", parameters: { type: "dict", properties: {} } }],
  };
  await writeFile(join(dir, "bfcl", "simple.jsonl"), `${JSON.stringify(question)}\n`);
  await assert.rejects(loadBenchmark("bfcl", { dataDir: dir }), (error: Error) => {
    assert.match(error.message, /No file for bfcl split "simple"/);
    assert.ok(
      error.message.includes(join(dir, "bfcl", "simple.possible_answer.jsonl")),
      error.message,
    );
    return true;
  });
  const answer = { id: "simple_0", ground_truth: [{ w: { city: ["Oslo"] } }] };
  await writeFile(
    join(dir, "bfcl", "simple.possible_answer.jsonl"),
    `${JSON.stringify(answer)}\n${JSON.stringify(answer)}\n`,
  );
  await assert.rejects(
    loadBenchmark("bfcl", { dataDir: dir }),
    /bfcl: possible_answer rows repeat id "simple_0"/,
  );
  await writeFile(join(dir, "bfcl", "simple.possible_answer.jsonl"), `${JSON.stringify(answer)}\n`);
  const [task] = await loadBenchmark("bfcl", { dataDir: dir });
  assert.deepEqual(task!.data.groundTruth, answer.ground_truth);
});

test("a split whose every row the benchmark leaves out is an error that says why", async () => {
  const dir = join(tmp, "filtered-data");
  await mkdir(join(dir, "wmt24pp"), { recursive: true });
  const bad = { lp: "en-de_DE", source: "http://x", target: "http://x", is_bad_source: true };
  await writeFile(join(dir, "wmt24pp", "en-de_DE.jsonl"), `${JSON.stringify(bad)}\n`);
  await assert.rejects(
    loadBenchmark("wmt24pp", { dataDir: dir }),
    /none of the 1 rows of wmt24pp split "en-de_DE" is used \(segments flagged is_bad_source are left out/,
  );
});

test("two pulls of a sharded split at once: the one that finishes second uses the first's folder", async () => {
  const cacheDir = join(tmp, "race-cache");
  const target = join(cacheDir, "hotpotqa", "hotpot_qa", "distractor", "validation");
  const shard = await readFile(fixture("hotpotqa-validation.parquet"));
  let hubUrl = "";
  const hub = await fakeHub({
    "/api/datasets/hotpotqa/hotpot_qa/parquet/distractor/validation": async () => ({
      body: JSON.stringify([0, 1].map((i) => `${hubUrl}/shards/${i}.parquet`)),
    }),
    "/shards/0.parquet": async () => ({ body: shard }),
    "/shards/1.parquet": async () => {
      // Meanwhile another process (another rllm eval) completes the same split.
      await mkdir(target, { recursive: true });
      await writeFile(join(target, "00000.parquet"), shard);
      await writeFile(join(target, "00001.parquet"), shard);
      return { body: shard };
    },
  });
  hubUrl = hub.url;
  try {
    const tasks = await loadBenchmark("hotpotqa", { cacheDir, hubEndpoint: hub.url });
    assert.equal(tasks.length, 4);
    assert.deepEqual(await readdir(target), ["00000.parquet", "00001.parquet"]);
    assert.deepEqual(
      (await readdir(join(target, ".."))).filter((n) => n.includes("partial")),
      [],
      "no partial folder left behind",
    );
  } finally {
    await hub.close();
  }
});

test("progress never claims a total the bytes do not add up to (a compressed body's Content-Length)", async () => {
  const rows = Array.from({ length: 500 }, (_, i) =>
    JSON.stringify({ problem: `p${i}`, answer: "1" }),
  );
  const text = `${rows.join("\n")}\n`;
  const hub = await fakeHub({
    // A CDN that gzips text: Content-Length is the compressed size, fetch hands over the text.
    "/datasets/o/d/resolve/main/test.jsonl": async () => ({
      body: gzipSync(text),
      headers: { "content-encoding": "gzip", "content-length": String(gzipSync(text).length) },
    }),
  });
  try {
    const seen: DownloadProgress[] = [];
    const path = await downloadSplit(
      {
        hfDataset: "o/d",
        hfSplit: "test",
        split: "test",
        file: "test.jsonl",
        cacheDir: join(tmp, "gz-cache"),
      },
      { endpoint: hub.url, onProgress: (p) => seen.push(p) },
    );
    assert.equal(await readFile(path, "utf8"), text);
    const last = seen.at(-1)!;
    assert.equal(last.done, true);
    assert.equal(last.received, Buffer.byteLength(text));
    for (const p of seen)
      assert.ok(p.total === undefined || p.received <= p.total, `${p.received} of ${p.total}`);
  } finally {
    await hub.close();
  }
});
