/**
 * Builds a ChatRenderer from a model directory in the Hugging Face layout: tokenizer.json,
 * tokenizer_config.json, and optionally chat_template.jinja / chat_template.json /
 * generation_config.json. Every failure names the file and what to do about it.
 */
import { readFileSync, statSync } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { Tokenizer } from "@huggingface/tokenizers";
import { type AddedTokenSpec, CachedEncoder } from "./encoder.js";
import { RendererLoadError } from "./errors.js";
import { type ChatRenderer, HfChatRenderer } from "./renderer.js";
import { ChatTemplate, type NamedTemplate } from "./template.js";

export interface LoadRendererOptions {
  /** Use this chat template instead of the model's (e.g. a fixed or custom one). */
  chatTemplate?: string;
}

/** The raw text of each file the loader reads; undefined when an optional one is absent. */
interface ModelFiles {
  dir: string;
  tokenizer: string;
  tokenizerConfig: string;
  chatTemplateJinja: string | undefined;
  chatTemplateJson: string | undefined;
  generationConfig: string | undefined;
}

const TOKENIZER = "tokenizer.json";
const TOKENIZER_CONFIG = "tokenizer_config.json";
const TEMPLATE_JINJA = "chat_template.jinja";
const TEMPLATE_JSON = "chat_template.json";
const GENERATION_CONFIG = "generation_config.json";

export async function loadRenderer(
  dir: string,
  opts: LoadRendererOptions = {},
): Promise<ChatRenderer> {
  const abs = resolve(dir);
  await checkDir(abs);
  const optional = async (name: string) => {
    try {
      return await readFile(join(abs, name), "utf8");
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw unreadable(join(abs, name), err);
    }
  };
  const required = async (name: string) => {
    const text = await optional(name);
    if (text === undefined) throw missing(abs, name);
    return text;
  };
  const [tokenizer, tokenizerConfig, chatTemplateJinja, chatTemplateJson, generationConfig] =
    await Promise.all([
      required(TOKENIZER),
      required(TOKENIZER_CONFIG),
      optional(TEMPLATE_JINJA),
      optional(TEMPLATE_JSON),
      optional(GENERATION_CONFIG),
    ]);
  return buildRenderer(
    { dir: abs, tokenizer, tokenizerConfig, chatTemplateJinja, chatTemplateJson, generationConfig },
    opts,
  );
}

export function loadRendererSync(dir: string, opts: LoadRendererOptions = {}): ChatRenderer {
  const abs = resolve(dir);
  checkDirSync(abs);
  const optional = (name: string) => {
    try {
      return readFileSync(join(abs, name), "utf8");
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw unreadable(join(abs, name), err);
    }
  };
  const required = (name: string) => {
    const text = optional(name);
    if (text === undefined) throw missing(abs, name);
    return text;
  };
  return buildRenderer(
    {
      dir: abs,
      tokenizer: required(TOKENIZER),
      tokenizerConfig: required(TOKENIZER_CONFIG),
      chatTemplateJinja: optional(TEMPLATE_JINJA),
      chatTemplateJson: optional(TEMPLATE_JSON),
      generationConfig: optional(GENERATION_CONFIG),
    },
    opts,
  );
}

function buildRenderer(files: ModelFiles, opts: LoadRendererOptions): ChatRenderer {
  const tokPath = join(files.dir, TOKENIZER);
  const cfgPath = join(files.dir, TOKENIZER_CONFIG);
  const tokJson = parseJsonObject(files.tokenizer, tokPath);
  const config = parseJsonObject(files.tokenizerConfig, cfgPath);

  const model = tokJson["model"];
  if (!isObject(model) || (!isObject(model["vocab"]) && !Array.isArray(model["vocab"]))) {
    throw new RendererLoadError(
      `${tokPath} has no "model.vocab", so it is not a Hugging Face tokenizers file (a slow tokenizer's vocab.json/merges.txt is not enough); ` +
        "save the tokenizer with a fast tokenizer (tokenizer.save_pretrained) or download the model's tokenizer.json",
      tokPath,
    );
  }
  const rawAdded = tokJson["added_tokens"] ?? [];
  if (!Array.isArray(rawAdded)) {
    throw new RendererLoadError(
      `${tokPath}: "added_tokens" must be a list of {id, content}`,
      tokPath,
    );
  }
  const addedTokens = new Map<number, string>();
  const addedSpecs: AddedTokenSpec[] = [];
  for (const t of rawAdded) {
    if (isObject(t) && typeof t["id"] === "number" && typeof t["content"] === "string") {
      addedTokens.set(t["id"], t["content"]);
      addedSpecs.push({
        id: t["id"],
        content: t["content"],
        lstrip: t["lstrip"] === true,
        rstrip: t["rstrip"] === true,
        // A normalized added token only matches after normalisation, when there is a normalizer.
        normalized: t["normalized"] === true && tokJson["normalizer"] != null,
      });
    }
  }
  let maxId = -1;
  if (Array.isArray(model["vocab"])) {
    // Unigram: [[piece, score], ...], the id is the position.
    maxId = model["vocab"].length - 1;
  } else {
    for (const id of Object.values(model["vocab"] as Record<string, unknown>)) {
      if (typeof id === "number" && id > maxId) maxId = id;
    }
  }
  for (const id of addedTokens.keys()) if (id > maxId) maxId = id;

  let tokenizer: Tokenizer;
  try {
    tokenizer = new Tokenizer(tokJson, config);
  } catch (err) {
    throw new RendererLoadError(
      `${tokPath} could not be loaded by @huggingface/tokenizers: ${(err as Error).message}; ` +
        "check that it is the model's own tokenizer.json (a component it uses may be unsupported)",
      tokPath,
      { cause: err },
    );
  }

  const { sources, origin, originPath } = chatTemplateSources(files, config, opts);
  let template: ChatTemplate;
  try {
    template = new ChatTemplate(sources, specialTokensMap(config), origin);
  } catch (err) {
    throw new RendererLoadError(`${(err as Error).message}`, originPath, { cause: err });
  }

  const configuredEosIds: number[] = [];
  if (files.generationConfig !== undefined) {
    const genPath = join(files.dir, GENERATION_CONFIG);
    const gen = parseJsonObject(files.generationConfig, genPath);
    const eos = gen["eos_token_id"];
    for (const id of Array.isArray(eos) ? eos : [eos]) {
      if (typeof id === "number") configuredEosIds.push(id);
    }
  }
  const eosText = tokenText(config["eos_token"]);
  if (eosText !== undefined) {
    const id = tokenizer.token_to_id(eosText);
    if (id !== undefined) configuredEosIds.push(id);
  }

  const decoder = tokJson["decoder"];
  const byteLevel =
    isObject(decoder) &&
    (decoder["type"] === "ByteLevel" ||
      (decoder["type"] === "Sequence" &&
        Array.isArray(decoder["decoders"]) &&
        decoder["decoders"].some((d: unknown) => isObject(d) && d["type"] === "ByteLevel")));

  // These options make the tokenizer rewrite the text before it splits out added tokens.
  const exactSplit =
    config["remove_space"] !== true && config["do_lowercase_and_remove_accent"] !== true;
  return new HfChatRenderer({
    tokenizer,
    template,
    addedTokens,
    encoder: new CachedEncoder(tokenizer, addedSpecs, exactSplit),
    byteLevel,
    configuredEosIds,
    vocabSize: maxId + 1,
  });
}

/**
 * The template's variants and where they came from. transformers reads chat_template.jinja (then
 * chat_template.json) in preference to tokenizer_config.json's "chat_template", so we do too.
 */
function chatTemplateSources(
  files: ModelFiles,
  config: Record<string, unknown>,
  opts: LoadRendererOptions,
): { sources: NamedTemplate[]; origin: string; originPath: string } {
  if (opts.chatTemplate !== undefined) {
    return {
      sources: [{ name: "default", template: opts.chatTemplate }],
      origin: "the chatTemplate option",
      originPath: files.dir,
    };
  }
  if (files.chatTemplateJinja !== undefined) {
    const path = join(files.dir, TEMPLATE_JINJA);
    return {
      sources: [{ name: "default", template: files.chatTemplateJinja }],
      origin: path,
      originPath: path,
    };
  }
  if (files.chatTemplateJson !== undefined) {
    const path = join(files.dir, TEMPLATE_JSON);
    const json = parseJsonObject(files.chatTemplateJson, path);
    return {
      sources: templateVariants(json["chat_template"], path),
      origin: path,
      originPath: path,
    };
  }
  const path = join(files.dir, TOKENIZER_CONFIG);
  if (config["chat_template"] === undefined || config["chat_template"] === null) {
    throw new RendererLoadError(
      `no chat template for ${files.dir}: ${TOKENIZER_CONFIG} has no "chat_template" and there is no ${TEMPLATE_JINJA}; ` +
        "this looks like a base model; use its instruct variant, add a chat template file, or pass the chatTemplate option",
      path,
    );
  }
  return {
    sources: templateVariants(config["chat_template"], path),
    origin: path,
    originPath: path,
  };
}

function templateVariants(value: unknown, path: string): NamedTemplate[] {
  if (typeof value === "string") return [{ name: "default", template: value }];
  if (Array.isArray(value) && value.length > 0) {
    const out: NamedTemplate[] = [];
    for (const v of value) {
      if (!isObject(v) || typeof v["name"] !== "string" || typeof v["template"] !== "string") {
        throw new RendererLoadError(
          `${path}: "chat_template" is a list, so each entry must be {"name": string, "template": string}; got ${JSON.stringify(v)?.slice(0, 80)}`,
          path,
        );
      }
      out.push({ name: v["name"], template: v["template"] });
    }
    return out;
  }
  throw new RendererLoadError(
    `${path}: "chat_template" must be a string or a list of {"name", "template"}; got ${typeof value}`,
    path,
  );
}

/** transformers' special_tokens_map: each set special token's text, passed to the template. */
function specialTokensMap(config: Record<string, unknown>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const key of [
    "bos_token",
    "eos_token",
    "unk_token",
    "sep_token",
    "pad_token",
    "cls_token",
    "mask_token",
  ]) {
    const text = tokenText(config[key]);
    if (text !== undefined) out[key] = text;
  }
  const extra = config["additional_special_tokens"];
  if (Array.isArray(extra) && extra.length > 0) {
    out["additional_special_tokens"] = extra
      .map(tokenText)
      .filter((t): t is string => t !== undefined);
  }
  return out;
}

/** A token in tokenizer_config is a string or an AddedToken dict {"content": ...}. */
function tokenText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (isObject(value) && typeof value["content"] === "string") return value["content"];
  return undefined;
}

function parseJsonObject(text: string, path: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new RendererLoadError(
      `${path} is not valid JSON (${(err as Error).message}); the download may be truncated or an LFS pointer: fetch the file again`,
      path,
      { cause: err },
    );
  }
  if (!isObject(value)) {
    throw new RendererLoadError(
      `${path} must hold a JSON object; fetch the model's own file again`,
      path,
    );
  }
  return value;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function isNotFound(err: unknown): boolean {
  return isObject(err) && (err["code"] === "ENOENT" || err["code"] === "ENOTDIR");
}

function missing(dir: string, name: string): RendererLoadError {
  return new RendererLoadError(
    `${join(dir, name)} is missing: the renderer needs the model's Hugging Face tokenizer files (${TOKENIZER} and ${TOKENIZER_CONFIG}) in ${dir}; ` +
      "download them with the model (e.g. `huggingface-cli download <model> tokenizer.json tokenizer_config.json`)",
    join(dir, name),
  );
}

function unreadable(path: string, err: unknown): RendererLoadError {
  return new RendererLoadError(`${path} could not be read: ${(err as Error).message}`, path, {
    cause: err,
  });
}

async function checkDir(dir: string): Promise<void> {
  let isDir: boolean;
  try {
    isDir = (await stat(dir)).isDirectory();
  } catch (err) {
    if (isNotFound(err)) throw noDir(dir);
    throw unreadable(dir, err);
  }
  if (!isDir) throw notDir(dir);
}

function checkDirSync(dir: string): void {
  let isDir: boolean;
  try {
    isDir = statSync(dir).isDirectory();
  } catch (err) {
    if (isNotFound(err)) throw noDir(dir);
    throw unreadable(dir, err);
  }
  if (!isDir) throw notDir(dir);
}

function noDir(dir: string): RendererLoadError {
  return new RendererLoadError(
    `model directory ${dir} does not exist; point it at a folder holding the model's tokenizer.json and tokenizer_config.json`,
    dir,
  );
}

function notDir(dir: string): RendererLoadError {
  return new RendererLoadError(
    `${dir} is a file, not a model directory; pass the folder that holds tokenizer.json and tokenizer_config.json`,
    dir,
  );
}
