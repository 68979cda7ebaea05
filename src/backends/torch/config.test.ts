/**
 * The torch section's distributed keys (nproc, nnodes, rdzvEndpoint,
 * timeouts.collectiveS): defaults, each bad value's error naming its key, and `rllm train`'s flags
 * reaching them.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Command } from "commander";
import { trainCommand, trainFlagsToConfig } from "../../cli/train.js";
import { loadConfig } from "../../config/index.js";
import { TorchBackendConfigSchema } from "./config.js";

const torch = (extra: Record<string, unknown>) =>
  loadConfig({ env: {}, flags: { backend: { name: "torch", model: "m", ...extra } } }).backend;

describe("the torch backend's distributed keys", () => {
  test("default to one process on one node: nproc 1, nnodes 1, node 0, collectives 600 s", () => {
    const c = TorchBackendConfigSchema.parse({ model: "m" });
    assert.equal(c.nproc, 1);
    assert.equal(c.nnodes, 1);
    assert.equal("nodeRank" in c, false, "the node that runs rllm is node 0: no key says so");
    assert.equal(c.rdzvEndpoint, undefined);
    assert.equal(c.timeouts.collectiveS, 600);
  });

  test("several nodes with node 0's endpoint (a name, an IPv4 or a bracketed IPv6 address)", () => {
    for (const ep of ["10.0.0.1:29500", "node-0.cluster:1", "[fe80::1]:65535"]) {
      const c = torch({ nproc: 8, nnodes: 2, rdzvEndpoint: ep, timeouts: { collectiveS: 30 } });
      assert.ok(c.name === "torch");
      assert.deepEqual([c.nproc, c.nnodes, c.rdzvEndpoint, c.timeouts.collectiveS], [8, 2, ep, 30]);
    }
  });

  const bad: [Record<string, unknown>, RegExp][] = [
    [{ nproc: 0 }, /backend\.nproc: Too small: expected number to be >=1/],
    [{ nproc: 1.5 }, /backend\.nproc: .*expected int/],
    [{ nnodes: 0 }, /backend\.nnodes: Too small/],
    [{ nodeRank: 0 }, /unknown config key "backend\.nodeRank"/],
    [
      { nnodes: 2 },
      /backend\.rdzvEndpoint: required with backend\.nnodes 2: node 0's "host:port" that every node reaches/,
    ],
    [
      { nnodes: 2, rdzvEndpoint: "10.0.0.1" },
      /backend\.rdzvEndpoint: "10\.0\.0\.1" is not "host:port" \(e\.g\. 10\.0\.0\.1:29500\)/,
    ],
    [{ nnodes: 2, rdzvEndpoint: "h:70000" }, /backend\.rdzvEndpoint: "h:70000" is not "host:port"/],
    [{ nnodes: 2, rdzvEndpoint: "h:0" }, /backend\.rdzvEndpoint: "h:0" is not "host:port"/],
    [{ nnodes: 2, rdzvEndpoint: "a b:1" }, /backend\.rdzvEndpoint: "a b:1" is not "host:port"/],
    [
      { rdzvEndpoint: "10.0.0.1:29500" },
      /backend\.rdzvEndpoint: is the rendezvous of several nodes and backend\.nnodes is 1/,
    ],
    [{ timeouts: { collectiveS: 0 } }, /backend\.timeouts\.collectiveS: Too small/],
    [{ nprocs: 2 }, /backend\.nprocs/],
  ];
  for (const [section, want] of bad)
    test(`${JSON.stringify(section)} is an error naming the key`, () => {
      assert.throws(() => torch(section), want);
    });

  test("rllm train's --nproc, --nnodes and --rdzv-endpoint set them", () => {
    const flags = (argv: string[]) => {
      const cmd = trainCommand().exitOverride();
      cmd.action(() => undefined);
      new Command().addCommand(cmd).parse(["train", "countdown", ...argv], { from: "user" });
      return trainFlagsToConfig(cmd.opts());
    };
    const c = loadConfig({
      env: {},
      flags: flags(
        "--backend torch --model m --nproc 2 --nnodes 3 --rdzv-endpoint 10.0.0.1:29500".split(" "),
      ),
    }).backend;
    assert.ok(c.name === "torch");
    assert.deepEqual([c.nproc, c.nnodes, c.rdzvEndpoint], [2, 3, "10.0.0.1:29500"]);
    assert.throws(
      () =>
        loadConfig({ env: {}, flags: flags("--backend torch --model m --nnodes 2".split(" ")) }),
      /backend\.rdzvEndpoint: required with backend\.nnodes 2/,
    );
    assert.throws(() => flags(["--nproc", "-1"]), /--nproc -1: must be a non-negative integer/);
  });
});
