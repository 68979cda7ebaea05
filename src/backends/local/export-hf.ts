/**
 * The local GPT as a genuine Hugging Face model directory: plain transformers
 * (`AutoModelForCausalLM`, `AutoTokenizer`, `apply_chat_template`) loads it and computes the same
 * logprobs, so the torch backend can train and serve the local backend's weights and the two
 * backends can be checked against each other.
 *
 *   await exportLocalAsHf({ config, params }, "out/");   // or exportLocalAsHf("ckpt/", "out/")
 *
 * Architecture: the local model (model.ts) is a pre-LayerNorm GPT with a tied head, which is
 * exactly one of two transformers architectures:
 *   positional "rope"    → GPTNeoXForCausalLM: rotary on the whole head (rotary_pct 1, base 10000,
 *                          "rotate-half" pairs (i, i + d/2) as functional.ts's ropeRow), sequential
 *                          residual (use_parallel_residual false: x + attn(LN₁x), then + mlp(LN₂·)),
 *                          biases on every projection (attention_bias true);
 *   positional "learned" → GPT2LMHeadModel: learned positions (wpe), the same block.
 * Both: hidden_act / activation_function "gelu_new", transformers' NewGELUActivation, which is the
 * local GELU's formula term for term, ½·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))) (the local tanh is
 * a Padé approximant within 1.4e-7 of tanh); LayerNorm eps 1e-5 (model.ts's LN_EPS); attention
 * scaled by 1/√d_head; tied embeddings; float32.
 *
 * Weights. Local linear weights are [in × out] (x·W); nn.Linear stores [out × in], so they are
 * transposed for GPT-NeoX, while GPT-2's Conv1D stores [in × out] as the local model does. The
 * local qkv columns are [q | k | v], head h at h·d..(h+1)·d within each; GPT-NeoX's
 * query_key_value output is viewed as [H × 3d] and chunked into q, k, v per head, so its row
 * h·3d + j·d + i is local column j·D + h·d + i (j = 0, 1, 2 for q, k, v). GPT-2's c_attn splits
 * [q | k | v] as the local model does.
 *
 * Tokenizer: tokenizer.json is byte-level BPE with no merges, the 256 bytes at id = byte value
 * (each written as its GPT-2 bytes_to_unicode character), a ByteLevel pre-tokenizer without the
 * regex split and without a prefix space, no normalizer, a ByteLevel decoder, and the 8 specials
 * of tokenizer.ts at 256–263 as added special tokens: it encodes exactly as ByteTokenizer.encode
 * (specials in text become their ids) and decodes exactly as decode. tokenizer_config.json holds
 * a chat template that renders what chat-format.ts renders (CHAT_TEMPLATE below) and eos
 * `<|im_end|>`; generation_config.json's eos ids are tokenizer.ts's EOS_TOKEN_IDS.
 *
 * What a template cannot write: chat-format.ts never reads special-token text inside text it did
 * not tag itself (it stays bytes), while a template's output is tokenized as a whole. So the same
 * text, different ids, in two places: a message content holding e.g. "<|im_end|>", and the tools
 * block's own "<tool_call></tool_call>" / "<tool_call>\n…\n</tool_call>" instructions (bytes
 * locally, the special ids here, as in Qwen's own template). Conversations without tools render
 * to the same ids.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { Tensor } from "../checkpoint/safetensors.js";
import { writeSafetensorsFile } from "../checkpoint/safetensors.js";
import { type GptConfig, gptParamLayout } from "./model.js";
import {
  BYTE_VOCAB_SIZE,
  EOS_TOKEN_IDS,
  IM_END_ID,
  PAD_ID,
  SPECIAL_TOKENS,
  VOCAB_SIZE,
} from "./tokenizer.js";
import { loadLocalCheckpoint, tensorsFromFlat } from "./weights.js";

/** The local model's weights: its config and the flat parameters in gptParamLayout order. */
export interface LocalWeights {
  config: GptConfig;
  params: Float32Array;
}

/** model.ts's LayerNorm epsilon. */
const LN_EPS = 1e-5;
/** functional.ts's RoPE base θ. */
const ROPE_BASE = 10000;

/** Writes the model directory; `source` is the weights or a local checkpoint directory. */
export async function exportLocalAsHf(
  source: LocalWeights | string,
  outDir: string,
): Promise<void> {
  const { config, params } =
    typeof source === "string" ? await loadLocalCheckpoint(source) : source;
  const layout = gptParamLayout(config);
  const size = layout.reduce((a, p) => a + p.size, 0);
  if (params.length !== size)
    throw new Error(
      `exportLocalAsHf: params hold ${params.length} floats, the config's layout needs ${size}; pass the model's paramData with its own config`,
    );
  if (config.vocabSize !== VOCAB_SIZE)
    throw new Error(
      `exportLocalAsHf: vocabSize ${config.vocabSize} is not the byte tokenizer's ${VOCAB_SIZE}`,
    );
  const named = tensorsFromFlat(layout, params);
  const w = (name: string) => named[name]!.data;
  const tensors = config.positional === "rope" ? neoxTensors(config, w) : gpt2Tensors(config, w);
  const dir = resolve(outDir);
  await mkdir(dir, { recursive: true });
  const json = (name: string, value: unknown) =>
    writeFile(join(dir, name), `${JSON.stringify(value, null, 2)}\n`);
  await writeSafetensorsFile(join(dir, "model.safetensors"), tensors, { format: "pt" });
  await json("config.json", modelConfig(config));
  await json("generation_config.json", {
    eos_token_id: [...EOS_TOKEN_IDS],
    pad_token_id: PAD_ID,
    bos_token_id: null,
  });
  await json("tokenizer.json", byteLevelTokenizerJson());
  await json("tokenizer_config.json", tokenizerConfig(config));
}

/** config.json: GPT-NeoX for "rope", GPT-2 for "learned" (see the header for each value). */
export function modelConfig(config: GptConfig): Record<string, unknown> {
  const { dModel: D, nLayers: L, nHeads: H, maxSeqLen, mlpRatio } = config;
  const common = {
    vocab_size: VOCAB_SIZE,
    bos_token_id: null,
    eos_token_id: [...EOS_TOKEN_IDS],
    pad_token_id: PAD_ID,
    tie_word_embeddings: true,
    torch_dtype: "float32",
    use_cache: true,
  };
  if (config.positional === "rope")
    return {
      architectures: ["GPTNeoXForCausalLM"],
      model_type: "gpt_neox",
      hidden_size: D,
      num_hidden_layers: L,
      num_attention_heads: H,
      intermediate_size: D * mlpRatio,
      hidden_act: "gelu_new",
      max_position_embeddings: maxSeqLen,
      layer_norm_eps: LN_EPS,
      use_parallel_residual: false,
      attention_bias: true,
      rotary_pct: 1.0,
      rotary_emb_base: ROPE_BASE,
      rope_parameters: { rope_type: "default", rope_theta: ROPE_BASE, partial_rotary_factor: 1.0 },
      attention_dropout: 0.0,
      hidden_dropout: 0.0,
      ...common,
    };
  return {
    architectures: ["GPT2LMHeadModel"],
    model_type: "gpt2",
    n_embd: D,
    n_layer: L,
    n_head: H,
    n_inner: D * mlpRatio,
    n_positions: maxSeqLen,
    activation_function: "gelu_new",
    layer_norm_epsilon: LN_EPS,
    scale_attn_weights: true,
    scale_attn_by_inverse_layer_idx: false,
    reorder_and_upcast_attn: false,
    resid_pdrop: 0.0,
    embd_pdrop: 0.0,
    attn_pdrop: 0.0,
    ...common,
  };
}

type Weight = (name: string) => Float32Array;

const f32 = (shape: number[], data: Float32Array): Tensor => ({ dtype: "F32", shape, data });

/** [rows × cols] row-major → [cols × rows]. */
function transpose(a: Float32Array, rows: number, cols: number): Float32Array {
  const out = new Float32Array(a.length);
  for (let r = 0; r < rows; r++)
    for (let c = 0; c < cols; c++) out[c * rows + r] = a[r * cols + c]!;
  return out;
}

/** Local qkv column of GPT-NeoX's query_key_value row o = h·3d + j·d + i: j·D + h·d + i. */
function neoxQkvColumn(o: number, D: number, H: number): number {
  const d = D / H;
  const h = Math.floor(o / (3 * d));
  const j = Math.floor((o % (3 * d)) / d);
  return j * D + h * d + (o % d);
}

function neoxTensors(config: GptConfig, w: Weight): Record<string, Tensor> {
  const { dModel: D, nHeads: H, nLayers: L } = config;
  const F = D * config.mlpRatio;
  const out: Record<string, Tensor> = {
    "gpt_neox.embed_in.weight": f32([VOCAB_SIZE, D], w("wte")),
  };
  for (let l = 0; l < L; l++) {
    const p = `gpt_neox.layers.${l}`;
    const wqkv = w(`h${l}.attn.wqkv`); // [D × 3D]
    const bqkv = w(`h${l}.attn.bqkv`);
    const qkvW = new Float32Array(3 * D * D);
    const qkvB = new Float32Array(3 * D);
    for (let o = 0; o < 3 * D; o++) {
      const c = neoxQkvColumn(o, D, H);
      for (let i = 0; i < D; i++) qkvW[o * D + i] = wqkv[i * 3 * D + c]!;
      qkvB[o] = bqkv[c]!;
    }
    out[`${p}.input_layernorm.weight`] = f32([D], w(`h${l}.ln1.g`));
    out[`${p}.input_layernorm.bias`] = f32([D], w(`h${l}.ln1.b`));
    out[`${p}.attention.query_key_value.weight`] = f32([3 * D, D], qkvW);
    out[`${p}.attention.query_key_value.bias`] = f32([3 * D], qkvB);
    out[`${p}.attention.dense.weight`] = f32([D, D], transpose(w(`h${l}.attn.wo`), D, D));
    out[`${p}.attention.dense.bias`] = f32([D], w(`h${l}.attn.bo`));
    out[`${p}.post_attention_layernorm.weight`] = f32([D], w(`h${l}.ln2.g`));
    out[`${p}.post_attention_layernorm.bias`] = f32([D], w(`h${l}.ln2.b`));
    out[`${p}.mlp.dense_h_to_4h.weight`] = f32([F, D], transpose(w(`h${l}.mlp.w1`), D, F));
    out[`${p}.mlp.dense_h_to_4h.bias`] = f32([F], w(`h${l}.mlp.b1`));
    out[`${p}.mlp.dense_4h_to_h.weight`] = f32([D, F], transpose(w(`h${l}.mlp.w2`), F, D));
    out[`${p}.mlp.dense_4h_to_h.bias`] = f32([D], w(`h${l}.mlp.b2`));
  }
  out["gpt_neox.final_layer_norm.weight"] = f32([D], w("lnf.g"));
  out["gpt_neox.final_layer_norm.bias"] = f32([D], w("lnf.b"));
  return out;
}

function gpt2Tensors(config: GptConfig, w: Weight): Record<string, Tensor> {
  const { dModel: D, nLayers: L, maxSeqLen } = config;
  const F = D * config.mlpRatio;
  const out: Record<string, Tensor> = {
    "transformer.wte.weight": f32([VOCAB_SIZE, D], w("wte")),
    "transformer.wpe.weight": f32([maxSeqLen, D], w("wpe")),
  };
  for (let l = 0; l < L; l++) {
    const p = `transformer.h.${l}`;
    out[`${p}.ln_1.weight`] = f32([D], w(`h${l}.ln1.g`));
    out[`${p}.ln_1.bias`] = f32([D], w(`h${l}.ln1.b`));
    out[`${p}.attn.c_attn.weight`] = f32([D, 3 * D], w(`h${l}.attn.wqkv`));
    out[`${p}.attn.c_attn.bias`] = f32([3 * D], w(`h${l}.attn.bqkv`));
    out[`${p}.attn.c_proj.weight`] = f32([D, D], w(`h${l}.attn.wo`));
    out[`${p}.attn.c_proj.bias`] = f32([D], w(`h${l}.attn.bo`));
    out[`${p}.ln_2.weight`] = f32([D], w(`h${l}.ln2.g`));
    out[`${p}.ln_2.bias`] = f32([D], w(`h${l}.ln2.b`));
    out[`${p}.mlp.c_fc.weight`] = f32([D, F], w(`h${l}.mlp.w1`));
    out[`${p}.mlp.c_fc.bias`] = f32([F], w(`h${l}.mlp.b1`));
    out[`${p}.mlp.c_proj.weight`] = f32([F, D], w(`h${l}.mlp.w2`));
    out[`${p}.mlp.c_proj.bias`] = f32([D], w(`h${l}.mlp.b2`));
  }
  out["transformer.ln_f.weight"] = f32([D], w("lnf.g"));
  out["transformer.ln_f.bias"] = f32([D], w("lnf.b"));
  return out;
}

/** GPT-2's bytes_to_unicode: byte → the printable character byte-level BPE writes it as. */
export function bytesToUnicode(): string[] {
  const printable = (b: number) => (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || b >= 174;
  const out: string[] = [];
  let n = 0;
  for (let b = 0; b < 256; b++) out.push(String.fromCharCode(printable(b) ? b : 256 + n++));
  return out;
}

const BYTE_LEVEL = {
  type: "ByteLevel",
  add_prefix_space: false,
  trim_offsets: false,
  use_regex: false,
};

/** tokenizer.json of the byte tokenizer (tokenizer.ts), in the Hugging Face tokenizers format. */
export function byteLevelTokenizerJson(): Record<string, unknown> {
  const vocab: Record<string, number> = {};
  bytesToUnicode().forEach((ch, b) => {
    vocab[ch] = b;
  });
  return {
    version: "1.0",
    truncation: null,
    padding: null,
    added_tokens: SPECIAL_TOKENS.map((content, i) => ({
      id: BYTE_VOCAB_SIZE + i,
      content,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: true,
    })),
    normalizer: null,
    pre_tokenizer: BYTE_LEVEL,
    post_processor: null,
    decoder: BYTE_LEVEL,
    model: {
      type: "BPE",
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: false,
      byte_fallback: false,
      ignore_merges: false,
      vocab,
      merges: [],
    },
  };
}

function tokenizerConfig(config: GptConfig): Record<string, unknown> {
  const added: Record<string, unknown> = {};
  SPECIAL_TOKENS.forEach((content, i) => {
    added[String(BYTE_VOCAB_SIZE + i)] = {
      content,
      lstrip: false,
      normalized: false,
      rstrip: false,
      single_word: false,
      special: true,
    };
  });
  return {
    tokenizer_class: "PreTrainedTokenizerFast",
    added_tokens_decoder: added,
    additional_special_tokens: SPECIAL_TOKENS.filter(
      (t) =>
        t !== SPECIAL_TOKENS[IM_END_ID - BYTE_VOCAB_SIZE] &&
        t !== SPECIAL_TOKENS[PAD_ID - BYTE_VOCAB_SIZE],
    ),
    bos_token: null,
    eos_token: SPECIAL_TOKENS[IM_END_ID - BYTE_VOCAB_SIZE],
    pad_token: SPECIAL_TOKENS[PAD_ID - BYTE_VOCAB_SIZE],
    unk_token: null,
    add_bos_token: false,
    add_eos_token: false,
    add_prefix_space: false,
    clean_up_tokenization_spaces: false,
    split_special_tokens: false,
    model_max_length: config.maxSeqLen,
    chat_template: CHAT_TEMPLATE,
  };
}

/** chat/chatml.ts's tools block, as a jinja expression over `tools` (compact JSON as JSON.stringify). */
const TOOLS_PREAMBLE =
  "'# Tools\\n\\nYou may call one or more functions to assist with the user query.\\n\\n" +
  "You are provided with function signatures within <tools></tools> XML tags:\\n<tools>'" +
  " + tool_lines.value + '\\n</tools>\\n\\nFor each function call, return a json object with " +
  "function name and arguments within <tool_call></tool_call> XML tags:\\n<tool_call>\\n" +
  '{"name": <function-name>, "arguments": <args-json-object>}\\n</tool_call>\'';

/**
 * chatMLSegments (chat/chatml.ts) as a chat template, one construct per line (joined without
 * newlines, so trim_blocks/lstrip_blocks have nothing to strip). The `for part in
 * message.content` loop also tells renderers that pass OpenAI content parts through (vLLM's
 * "openai" content format, hf/template.ts) to do so: text parts are joined with "" as
 * chatml.ts's textOnly joins them.
 */
export const CHAT_TEMPLATE = [
  "{%- set has_tools = tools is defined and tools is not none and tools | length > 0 -%}",
  "{%- set tool_lines = namespace(value='') -%}",
  "{%- if has_tools -%}{%- for tool in tools -%}",
  "{%- set tool_lines.value = tool_lines.value + '\\n' + (tool | tojson(separators=(',', ':'))) -%}",
  "{%- endfor -%}{%- endif -%}",
  "{%- if has_tools and (messages | length == 0 or messages[0].role not in ['system', 'developer']) -%}",
  `{{- '<|im_start|>system\\n' + ${TOOLS_PREAMBLE} + '<|im_end|>\\n' -}}`,
  "{%- endif -%}",
  "{%- for message in messages -%}",
  "{%- set ns = namespace(text='', index=loop.index0) -%}",
  "{%- if message.content is string -%}{%- set ns.text = message.content -%}",
  "{%- elif message.content is defined and message.content is not none -%}",
  "{%- for part in message.content -%}",
  "{%- if part.type == 'text' and part.text is string -%}{%- set ns.text = ns.text + part.text -%}",
  "{%- else -%}{{- raise_exception('message ' ~ ns.index ~ ' has a content part of type \"' ~ part.type ~ '\"; the local model reads text only') -}}",
  "{%- endif -%}{%- endfor -%}{%- endif -%}",
  "{%- if message.role in ['system', 'developer'] -%}",
  "{%- if loop.first and has_tools -%}",
  `{{- '<|im_start|>system\\n' + ns.text + '\\n\\n' + ${TOOLS_PREAMBLE} + '<|im_end|>\\n' -}}`,
  "{%- else -%}{{- '<|im_start|>system\\n' + ns.text + '<|im_end|>\\n' -}}{%- endif -%}",
  "{%- elif message.role == 'user' -%}",
  "{{- '<|im_start|>user\\n' + ns.text + '<|im_end|>\\n' -}}",
  "{%- elif message.role == 'assistant' -%}",
  "{{- '<|im_start|>assistant\\n' -}}",
  "{%- if message.reasoning_content is string -%}",
  "{{- '<think>\\n' + message.reasoning_content + '\\n</think>\\n\\n' -}}",
  "{%- endif -%}",
  "{{- ns.text -}}",
  "{%- if message.tool_calls is defined and message.tool_calls is not none -%}",
  "{%- for tool_call in message.tool_calls -%}",
  "{%- if tool_call.function is defined -%}{%- set call = tool_call.function -%}{%- else -%}{%- set call = tool_call -%}{%- endif -%}",
  "{%- if not loop.first or ns.text != '' -%}{{- '\\n' -}}{%- endif -%}",
  `{{- '<tool_call>\\n{"name": ' + (call.name | tojson) + ', "arguments": ' -}}`,
  "{%- if call.arguments is string -%}",
  "{%- if call.arguments | trim == '' -%}{{- '{}' -}}{%- else -%}{{- call.arguments -}}{%- endif -%}",
  "{%- else -%}{{- call.arguments | tojson -}}{%- endif -%}",
  "{{- '}\\n</tool_call>' -}}",
  "{%- endfor -%}",
  "{%- endif -%}",
  "{{- '<|im_end|>\\n' -}}",
  "{%- elif message.role in ['tool', 'function'] -%}",
  "{%- if loop.first or loop.previtem.role not in ['tool', 'function'] -%}{{- '<|im_start|>user' -}}{%- endif -%}",
  "{{- '\\n<tool_response>\\n' + ns.text + '\\n</tool_response>' -}}",
  "{%- if loop.last or loop.nextitem.role not in ['tool', 'function'] -%}{{- '<|im_end|>\\n' -}}{%- endif -%}",
  "{%- else -%}",
  "{{- raise_exception('message ' ~ loop.index0 ~ ' has role \"' ~ message.role ~ '\"; expected system, developer, user, assistant or tool') -}}",
  "{%- endif -%}",
  "{%- endfor -%}",
  "{%- if add_generation_prompt -%}{{- '<|im_start|>assistant\\n' -}}{%- endif -%}",
].join("");
