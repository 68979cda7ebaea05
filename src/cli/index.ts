#!/usr/bin/env node
/** The `rllm` command: one file per subcommand, each thin over the library. */
import { Command } from "commander";
import { ConfigError } from "../config/index.js";
import { VERSION } from "../version.js";
import { datasetCommand } from "./dataset.js";
import { evalCommand } from "./eval.js";
import { gatewayCommand } from "./gateway.js";
import { harnessCommand } from "./harness.js";
import { modelCommand } from "./model.js";
import { samplerCommand } from "./sampler.js";
import { sandboxCommand } from "./sandbox.js";
import { registerServeCommand } from "./serve.js";
import { sftCommand } from "./sft.js";
import { trainCommand } from "./train.js";
import { workerCommand } from "./worker.js";

const program = new Command()
  .name("rllm")
  .description("Reinforcement learning for LLM agents, in TypeScript.")
  .version(VERSION)
  .showHelpAfterError("(run with --help for usage)");

program.addCommand(gatewayCommand());
program.addCommand(datasetCommand());
program.addCommand(evalCommand());
program.addCommand(harnessCommand());
const model = modelCommand();
registerServeCommand(model);
program.addCommand(model);
program.addCommand(samplerCommand());
program.addCommand(sandboxCommand());
program.addCommand(sftCommand());
program.addCommand(trainCommand());
program.addCommand(workerCommand());

program.parseAsync(process.argv).catch((err: unknown) => {
  if (err instanceof ConfigError) {
    console.error(`rllm: ${err.message}`);
  } else {
    console.error(`rllm: ${err instanceof Error ? err.message : String(err)}`);
    const debug = process.env.RLLM_DEBUG || process.env.RLLM_LOG_LEVEL?.toLowerCase() === "debug";
    if (debug && err instanceof Error) console.error(err.stack);
  }
  process.exit(1);
});
