/**
 * spec.links: absolute paths that lead into the work dir (Harbor's /app, /tests, /logs/verifier),
 * in a real bwrap sandbox; the checks every backend shares; backends without them refuse.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { BwrapBackend } from "./bwrap.js";
import { BwrapSandboxConfigSchema } from "./config.js";
import { DOCKER_CAPABILITIES } from "./docker/config.js";
import { DAYTONA_CAPABILITIES } from "./remote/config.js";
import { checkLinks, resolveSpec } from "./spec.js";
import { SandboxError } from "./types.js";

const HARBOR = { "/app": "app", "/tests": "tests", "/logs/verifier": "logs/verifier" };

let backend: BwrapBackend;
before(async () => {
  backend = await BwrapBackend.start(BwrapSandboxConfigSchema.parse({ backend: "bwrap" }));
});
after(async () => {
  await backend.close();
});

describe("links in bwrap", () => {
  it("a command writes through the links; download reads the file in the work dir", async () => {
    const s = await backend.create({ links: HARBOR });
    try {
      const r = await s.exec([
        "sh",
        "-c",
        "cd /app && echo hi > note && echo 0.5 > /logs/verifier/reward.txt && ls -ld /logs && pwd -P",
      ]);
      assert.equal(r.exitCode, 0, r.stderr);
      assert.match(r.stdout, /^drwxr-xr-x/); // the link's parent is readable by the sandbox's user
      assert.match(r.stdout, /\/work\/app\n$/);
      assert.equal(new TextDecoder().decode(await s.download("logs/verifier/reward.txt")), "0.5\n");
      assert.equal(new TextDecoder().decode(await s.download("app/note")), "hi\n");
      // Uploads land where the link leads; the links themselves cannot be replaced.
      await s.upload([{ path: "tests/test.sh", content: "echo from-tests\n" }]);
      assert.equal((await s.exec(["sh", "/tests/test.sh"])).stdout, "from-tests\n");
      const rm = await s.exec(["sh", "-c", "rm /app || ln -sfn /etc /app"]);
      assert.notEqual(rm.exitCode, 0);
      assert.match(rm.stderr, /Read-only file system/);
    } finally {
      await s.close();
    }
  });

  it("the link dirs are there again after reset(), empty; the snapshot goes in through them", async () => {
    const s = await backend.create({
      links: HARBOR,
      snapshot: { files: [{ path: "app/main.py", content: "print(1)\n" }] },
    });
    try {
      await s.exec(["sh", "-c", "echo 1 > /logs/verifier/reward.txt; rm -r /work/tests"]);
      assert.ok(s.reset);
      await s.reset();
      const r = await s.exec(["sh", "-c", "ls -A /app /tests /logs/verifier"]);
      assert.equal(r.exitCode, 0, r.stderr);
      assert.equal(r.stdout, "/app:\nmain.py\n\n/logs/verifier:\n\n/tests:\n");
    } finally {
      await s.close();
    }
  });

  it("bad links are errors naming the link, before anything starts", async () => {
    const bad: [Record<string, string>, RegExp][] = [
      [{ app: "app" }, /link "app" must be an absolute path/],
      [{ "/a/../etc": "x" }, /must be an absolute path without/],
      [{ "/": "x" }, /must be an absolute path/],
      [{ "/app": "../escape" }, /sandbox link \/app: .*"\.\."/],
      [{ "/app": "/abs" }, /sandbox link \/app: .*is absolute/],
      [{ "/app": "" }, /sandbox link \/app: .*non-empty/],
      [{ "/usr/local/x": "x" }, /shadow or sit inside the sandbox's own \/usr/],
      [{ "/work/app": "x" }, /own \/work/],
      [{ "/tmp": "x" }, /own \/tmp/],
      [{ "/logs": "l", "/logs/verifier": "v" }, /link \/logs\/verifier is inside link \/logs/],
    ];
    for (const [links, message] of bad) {
      await assert.rejects(backend.create({ links }), (e: Error) => {
        assert.ok(e instanceof SandboxError, String(e));
        assert.match(e.message, message);
        return true;
      });
    }
  });
});

describe("links elsewhere", () => {
  it("docker and daytona refuse them through their capabilities, naming the links", () => {
    for (const [name, caps] of [
      ["docker", DOCKER_CAPABILITIES],
      ["daytona", DAYTONA_CAPABILITIES],
    ] as const) {
      assert.throws(
        () => resolveSpec(name, caps, { links: { "/app": "app" } }),
        new RegExp(`the ${name} sandbox backend cannot make path links \\(asked for /app\\)`),
      );
      resolveSpec(name, caps, { links: {} }); // none asked: nothing to refuse
    }
  });

  it("checkLinks returns the links sorted, targets normalized", () => {
    assert.deepEqual(checkLinks({ "/tests": "t", "/app": "a/b" }, []), [
      ["/app", "a/b"],
      ["/tests", "t"],
    ]);
    assert.deepEqual(checkLinks(undefined, []), []);
  });
});
