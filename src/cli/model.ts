/** `rllm model setup|show`: store and show the default model provider. */
import { createInterface } from "node:readline/promises";
import { Command } from "commander";
import {
  ConfigError,
  loadProvider,
  maskKey,
  type Provider,
  ProviderSchema,
  saveProvider,
  settingsPath,
} from "../config/index.js";
import { SETUP_FLAGS } from "./flag-tables.js";
import { addFlags } from "./flags.js";

export function modelCommand(): Command {
  const model = new Command("model").description(
    "Store or show the default model provider, or serve a model (rllm model serve).",
  );
  const setup = model
    .command("setup")
    .description(
      "Store a provider (base URL, API key, model) in $RLLM_HOME/config.json (mode 600).",
    );
  addFlags(setup, SETUP_FLAGS).action(
    async (opts: {
      baseUrl?: string;
      apiKey?: string;
      model?: string;
      kind?: Provider["kind"];
    }) => {
      const current = loadProvider();
      let { baseUrl, apiKey, model: name, kind } = opts;
      const interactive = process.stdin.isTTY && process.stdout.isTTY && (!baseUrl || !name);
      if (interactive) {
        const rl = createInterface({ input: process.stdin, output: process.stdout });
        try {
          const ask = async (q: string, dflt?: string) =>
            (await rl.question(`${q}${dflt ? ` [${dflt}]` : ""}: `)).trim() || dflt;
          baseUrl ??= await ask("Base URL", current?.baseURL ?? "https://api.openai.com/v1");
          apiKey ??= await ask(
            "API key (empty for none)",
            current?.apiKey ? maskKey(current.apiKey) : undefined,
          );
          if (current?.apiKey && apiKey === maskKey(current.apiKey)) apiKey = current.apiKey;
          name ??= await ask("Model", current?.model);
          kind ??= (await ask(
            `Kind (${ProviderSchema.shape.kind.unwrap().options.join(", ")})`,
            current?.kind ?? ProviderSchema.shape.kind.parse(undefined),
          )) as Provider["kind"];
        } finally {
          rl.close();
        }
      }
      if (!baseUrl || !name) {
        throw new ConfigError(
          "rllm model setup needs --base-url and --model (or run it in a terminal to be asked)",
        );
      }
      const path = saveProvider({
        baseURL: baseUrl,
        model: name,
        kind: kind ?? ProviderSchema.shape.kind.parse(undefined),
        ...(apiKey ? { apiKey } : {}),
      });
      console.log(`saved provider to ${path}`);
    },
  );
  model
    .command("show")
    .description("Print the stored provider (the API key masked).")
    .action(() => {
      const p = loadProvider();
      if (!p) {
        console.log(
          `no provider stored (${settingsPath()}); run: rllm model setup --base-url URL --model NAME`,
        );
        return;
      }
      console.log(
        `base URL  ${p.baseURL}\nmodel     ${p.model}\nkind      ${p.kind}\nAPI key   ${maskKey(p.apiKey)}\nfile      ${settingsPath()}`,
      );
    });
  return model;
}
