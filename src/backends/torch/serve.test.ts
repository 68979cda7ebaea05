import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { localModelDir } from "./serve.js";

test("localModelDir: a directory as it is, a Hub id through the Hugging Face cache's refs/main snapshot", (t) => {
  const root = mkdtempSync(join(tmpdir(), "rllm-hf-cache-"));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const rev = "0123456789abcdef0123456789abcdef01234567";
  const entry = join(root, "hub", "models--org--tiny");
  const snapshot = join(entry, "snapshots", rev);
  mkdirSync(join(entry, "refs"), { recursive: true });
  mkdirSync(snapshot, { recursive: true });
  writeFileSync(join(entry, "refs", "main"), `${rev}\n`);
  writeFileSync(join(snapshot, "tokenizer.json"), "{}");

  assert.equal(localModelDir(snapshot), snapshot);
  assert.equal(localModelDir("org/tiny", { HF_HUB_CACHE: join(root, "hub") }), snapshot);
  assert.equal(localModelDir("org/tiny", { HF_HOME: root }), snapshot, "HF_HOME/hub");
  assert.throws(
    () => localModelDir("org/absent", { HF_HUB_CACHE: join(root, "hub") }),
    /org\/absent is neither a directory nor a Hub model whose tokenizer is in the Hugging Face cache .*hf download org\/absent/,
  );
});
