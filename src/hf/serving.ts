/**
 * A Hugging Face model directory as a sampler's tokenizer and chat renderer: what a backend hands
 * the samplers' front end (backends/serving/) to serve a model it did not tokenize itself.
 *
 *   const { tokenizer, renderChat, eosTokenIds } = await loadServing("/models/Qwen3-0.6B");
 *   new SamplerServer({ generator, tokenizer, renderChat, ... })
 *
 * Built on the gateway's renderer (load.ts: tokenizer.json through @huggingface/tokenizers, the
 * chat template through template.ts), so the front end and the gateway render a conversation to
 * the same ids. Decided once here:
 * - encode: special-token strings (every added token) map to their ids; no BOS is added (chat
 *   templates write it themselves).
 * - decode / decodeStream: the tokenizer's own decode; the stream re-decodes a short window of ids
 *   (vLLM's incremental detokenizer) and holds back text that ends in U+FFFD, so a character whose
 *   bytes span several byte-level tokens is emitted whole, and the pieces joined equal `decode` of
 *   all the ids. `flush` emits whatever is held (an incomplete tail as U+FFFD, as decode does).
 * - tokenBytes: a byte-level BPE token's bytes through GPT-2's bytes↔unicode table; an added token's
 *   UTF-8; otherwise the UTF-8 of its text. tokenText: its decoded text, except that a token whose
 *   bytes are not whole UTF-8 characters is shown as `bytes:\xNN…` (as the local backend and
 *   OpenAI do) rather than U+FFFD, which would hide which bytes it held.
 * - eosTokenIds, in this order, without repeats: generation_config.json's `eos_token_id`,
 *   config.json's `eos_token_id` (each a number or a list), tokenizer_config.json's `eos_token`.
 *   None at all is an error: generation would only ever end at max_tokens.
 * - A directory without a chat template loads (text prompts work); rendering a chat is then a 400
 *   saying so.
 */
import { readFile, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { ChatMessage } from "../types/chat.js";
import type { ChatRenderer, ServingTokenizer } from "../types/serving.js";
import { RendererLoadError } from "./errors.js";
import { loadRenderer } from "./load.js";
import type { ChatRenderer as DirectoryRenderer } from "./renderer.js";

export interface ServingDirectory {
  tokenizer: ServingTokenizer;
  renderChat: ChatRenderer;
  eosTokenIds: number[];
}

/** transformers reads these, in this order, for a model's chat template. */
const TEMPLATE_FILES = ["chat_template.jinja", "chat_template.json"];

export async function loadServing(dir: string): Promise<ServingDirectory> {
  const abs = resolve(dir);
  const tokenizerConfig = await readJson(abs, "tokenizer_config.json");
  const hasTemplate =
    (tokenizerConfig !== undefined && tokenizerConfig["chat_template"] != null) ||
    (await Promise.all(TEMPLATE_FILES.map((f) => exists(join(abs, f))))).some(Boolean);
  const noTemplate = `{{ raise_exception(${JSON.stringify(
    `${abs} has no chat template (no ${TEMPLATE_FILES.join(", no ")}, no "chat_template" in ` +
      "tokenizer_config.json): send text prompts to /v1/completions, or add a chat template",
  )}) }}`;
  const renderer = await loadRenderer(abs, hasTemplate ? {} : { chatTemplate: noTemplate });
  const eosTokenIds = await readEosTokenIds(abs, tokenizerConfig, renderer);
  const tokenizer = new HfServingTokenizer(renderer, eosTokenIds);
  const renderChat: ChatRenderer = (messages, options) =>
    renderer.renderPrompt([...messages] as ChatMessage[], {
      addGenerationPrompt: options.addGenerationPrompt,
      tools: options.tools,
    }).ids;
  return { tokenizer, renderChat, eosTokenIds };
}

class HfServingTokenizer implements ServingTokenizer {
  readonly vocabSize: number;
  private readonly textCache = new Map<number, string>();

  constructor(
    private readonly renderer: DirectoryRenderer,
    readonly eosTokenIds: readonly number[],
  ) {
    this.vocabSize = renderer.vocabSize;
  }

  encode(text: string): number[] {
    return this.renderer.encode(text);
  }

  decode(ids: readonly number[], options: { skipSpecialTokens?: boolean } = {}): string {
    for (const id of ids) this.checkId(id);
    return this.renderer.decode(ids, options);
  }

  decodeStream(options: { skipSpecialTokens?: boolean } = {}): IncrementalDecoder {
    return new IncrementalDecoder((ids) => this.decode(ids, options));
  }

  tokenText(id: number): string {
    this.checkId(id);
    let text = this.textCache.get(id);
    if (text === undefined) {
      const bytes = this.renderer.tokenBytes(id);
      text = isWholeUtf8(bytes)
        ? this.renderer.tokenText(id)
        : `bytes:${bytes.map((b) => `\\x${b.toString(16).padStart(2, "0")}`).join("")}`;
      this.textCache.set(id, text);
    }
    return text;
  }

  tokenBytes(id: number): number[] {
    this.checkId(id);
    return this.renderer.tokenBytes(id);
  }

  private checkId(id: number): void {
    if (!Number.isInteger(id) || id < 0 || id >= this.vocabSize) {
      throw new RangeError(
        `token id ${id} is outside the tokenizer's vocabulary [0, ${this.vocabSize})`,
      );
    }
  }
}

/** Longest run of trailing ids that can still be an incomplete character (4 UTF-8 bytes). */
const MAX_HELD_IDS = 4;

/**
 * vLLM's incremental detokenization. `prefix..read` are ids already shown, decoded again only
 * as context (a decoder may render a token differently at the start of a text, e.g. a leading
 * space); `read..` are ids not shown yet. The text of `read..` is emitted once the window's
 * decode grows without ending in U+FFFD; when it does end so, the last few ids are held back.
 */
class IncrementalDecoder {
  private ids: number[] = [];
  private read = 0;

  constructor(private readonly decode: (ids: readonly number[]) => string) {}

  push(ids: readonly number[]): string {
    for (const id of ids) this.ids.push(id);
    const shown = this.decode(this.ids.slice(0, this.read)).length;
    for (
      let end = this.ids.length;
      end > this.read && this.ids.length - end < MAX_HELD_IDS;
      end--
    ) {
      const text = this.decode(this.ids.slice(0, end));
      if (text.length > shown && !text.endsWith("\ufffd")) {
        // The ids just shown become the next window's context; older ones are dropped.
        const context = this.read;
        this.ids = this.ids.slice(context);
        this.read = end - context;
        return text.slice(shown);
      }
    }
    return "";
  }

  flush(): string {
    const shown = this.decode(this.ids.slice(0, this.read)).length;
    const text = this.decode(this.ids);
    this.ids = [];
    this.read = 0;
    return text.length > shown ? text.slice(shown) : "";
  }
}

/** Whether bytes are whole UTF-8 characters (no partial or invalid sequence). */
function isWholeUtf8(bytes: readonly number[]): boolean {
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(bytes));
    return true;
  } catch {
    return false;
  }
}

async function readEosTokenIds(
  dir: string,
  tokenizerConfig: Record<string, unknown> | undefined,
  renderer: DirectoryRenderer,
): Promise<number[]> {
  const ids: number[] = [];
  for (const file of ["generation_config.json", "config.json"]) {
    const json = await readJson(dir, file);
    const eos = json?.["eos_token_id"];
    for (const id of Array.isArray(eos) ? eos : eos == null ? [] : [eos]) {
      if (!Number.isInteger(id) || id < 0 || id >= renderer.vocabSize) {
        throw new RendererLoadError(
          `${join(dir, file)}: eos_token_id ${JSON.stringify(id)} is not a token id in [0, ${renderer.vocabSize}); fix or remove it`,
          join(dir, file),
        );
      }
      ids.push(id);
    }
  }
  const eosToken = tokenizerConfig?.["eos_token"];
  const eosText =
    typeof eosToken === "string"
      ? eosToken
      : (eosToken as { content?: unknown } | undefined)?.content;
  if (typeof eosText === "string") {
    const encoded = renderer.encode(eosText);
    if (encoded.length !== 1) {
      throw new RendererLoadError(
        `${join(dir, "tokenizer_config.json")}: eos_token ${JSON.stringify(eosText)} is not one token of tokenizer.json (it encodes to ${encoded.length}); make it an added token or fix the name`,
        join(dir, "tokenizer_config.json"),
      );
    }
    ids.push(encoded[0]!);
  }
  if (ids.length === 0) {
    throw new RendererLoadError(
      `${dir} names no end-of-sequence token (no eos_token_id in generation_config.json or config.json, no eos_token in tokenizer_config.json), so generation could only end at max_tokens; set one of them`,
      dir,
    );
  }
  return [...new Set(ids)];
}

/** A JSON object file of the directory, or undefined when it is absent. */
async function readJson(dir: string, name: string): Promise<Record<string, unknown> | undefined> {
  const path = join(dir, name);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw new RendererLoadError(`${path} could not be read: ${(err as Error).message}`, path, {
      cause: err,
    });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new RendererLoadError(
      `${path} is not valid JSON (${(err as Error).message}); fetch the file again`,
      path,
      { cause: err },
    );
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new RendererLoadError(`${path} must hold a JSON object`, path);
  }
  return value as Record<string, unknown>;
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}
