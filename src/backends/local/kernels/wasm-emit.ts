/**
 * A minimal WebAssembly binary emitter: enough of the format to build compute kernels (i32/f32
 * scalar code, 128-bit SIMD, structured control flow) into a module that imports one linear
 * memory. No dependency and no build step: the kernels are generated at load time from
 * TypeScript, so `npm install` never needs a compiler.
 *
 * Usage: a {@link ModuleBuilder} collects functions; each {@link FuncBuilder} is a stack-machine
 * code writer whose methods append one instruction and return `this`, so kernels read as
 * postfix expressions (`f.get("a").get("b").i32Add().set("c")`).
 */

export type ValType = "i32" | "i64" | "f32" | "f64" | "v128";

const VALTYPE: Record<ValType, number> = {
  i32: 0x7f,
  i64: 0x7e,
  f32: 0x7d,
  f64: 0x7c,
  v128: 0x7b,
};

/** Unsigned LEB128. */
export function uleb(n: number): number[] {
  const out: number[] = [];
  let v = n >>> 0;
  do {
    let byte = v & 0x7f;
    v >>>= 7;
    if (v !== 0) byte |= 0x80;
    out.push(byte);
  } while (v !== 0);
  return out;
}

/** Signed LEB128 for 32-bit values. */
export function sleb(n: number): number[] {
  const out: number[] = [];
  let v = n | 0;
  for (;;) {
    const byte = v & 0x7f;
    v >>= 7;
    if ((v === 0 && (byte & 0x40) === 0) || (v === -1 && (byte & 0x40) !== 0)) {
      out.push(byte);
      return out;
    }
    out.push(byte | 0x80);
  }
}

function str(s: string): number[] {
  const b = [...new TextEncoder().encode(s)];
  return [...uleb(b.length), ...b];
}

function vec(items: number[][]): number[] {
  return [...uleb(items.length), ...items.flat()];
}

/** Memory access alignment hints (log2 bytes). */
const ALIGN = { i32: 2, f32: 2, v128: 4 } as const;

export class FuncBuilder {
  readonly code: number[] = [];
  private readonly localIndex = new Map<string, number>();
  private readonly extraLocals: ValType[] = [];

  constructor(
    readonly name: string,
    readonly params: [string, ValType][],
    readonly results: ValType[],
    readonly exported: boolean,
  ) {
    params.forEach(([n], i) => {
      this.localIndex.set(n, i);
    });
  }

  /** Declares a local (idempotent for a given name and type). */
  local(name: string, type: ValType): this {
    if (!this.localIndex.has(name)) {
      this.localIndex.set(name, this.params.length + this.extraLocals.length);
      this.extraLocals.push(type);
    }
    return this;
  }

  private idx(name: string): number {
    const i = this.localIndex.get(name);
    if (i === undefined) throw new Error(`${this.name}: unknown local ${name}`);
    return i;
  }

  private op(...bytes: number[]): this {
    for (const b of bytes) this.code.push(b);
    return this;
  }

  private simd(sub: number, ...imm: number[]): this {
    return this.op(0xfd, ...uleb(sub), ...imm);
  }

  // locals and constants
  get(name: string): this {
    return this.op(0x20, ...uleb(this.idx(name)));
  }
  set(name: string): this {
    return this.op(0x21, ...uleb(this.idx(name)));
  }
  tee(name: string): this {
    return this.op(0x22, ...uleb(this.idx(name)));
  }
  i32(n: number): this {
    return this.op(0x41, ...sleb(n));
  }
  f32(x: number): this {
    const b = new Uint8Array(new Float32Array([x]).buffer);
    return this.op(0x43, ...b);
  }
  drop(): this {
    return this.op(0x1a);
  }
  select(): this {
    return this.op(0x1b);
  }
  call(fn: FuncBuilder | number): this {
    return this.op(0x10, ...uleb(typeof fn === "number" ? fn : this.funcIndexOf(fn)));
  }
  /** Set by ModuleBuilder so calls can refer to builders. */
  funcIndexOf: (fn: FuncBuilder) => number = () => {
    throw new Error("call before the function is added to a module");
  };

  // i32 arithmetic and comparisons
  i32Add(): this {
    return this.op(0x6a);
  }
  i32Sub(): this {
    return this.op(0x6b);
  }
  i32Mul(): this {
    return this.op(0x6c);
  }
  i32DivU(): this {
    return this.op(0x6e);
  }
  i32And(): this {
    return this.op(0x71);
  }
  i32Or(): this {
    return this.op(0x72);
  }
  i32Shl(): this {
    return this.op(0x74);
  }
  i32ShrU(): this {
    return this.op(0x76);
  }
  i32Eqz(): this {
    return this.op(0x45);
  }
  i32Eq(): this {
    return this.op(0x46);
  }
  i32Ne(): this {
    return this.op(0x47);
  }
  i32LtS(): this {
    return this.op(0x48);
  }
  i32LtU(): this {
    return this.op(0x49);
  }
  i32GtS(): this {
    return this.op(0x4a);
  }
  i32LeS(): this {
    return this.op(0x4c);
  }
  i32GeS(): this {
    return this.op(0x4e);
  }

  // f32 scalar
  f32Add(): this {
    return this.op(0x92);
  }
  f32Sub(): this {
    return this.op(0x93);
  }
  f32Mul(): this {
    return this.op(0x94);
  }
  f32Div(): this {
    return this.op(0x95);
  }
  f32Sqrt(): this {
    return this.op(0x91);
  }
  f32Max(): this {
    return this.op(0x97);
  }
  f32ConvertI32S(): this {
    return this.op(0xb2);
  }

  // memory (addresses are byte offsets; `offset` is the static immediate)
  i32Load(offset = 0): this {
    return this.op(0x28, ALIGN.i32, ...uleb(offset));
  }
  f32Load(offset = 0): this {
    return this.op(0x2a, ALIGN.f32, ...uleb(offset));
  }
  f32Store(offset = 0): this {
    return this.op(0x38, ALIGN.f32, ...uleb(offset));
  }
  v128Load(offset = 0): this {
    return this.simd(0x00, ALIGN.v128, ...uleb(offset));
  }
  /** Loads one f32 and broadcasts it to all four lanes. */
  v128Load32Splat(offset = 0): this {
    return this.simd(0x09, ALIGN.f32, ...uleb(offset));
  }
  v128Store(offset = 0): this {
    return this.simd(0x0b, ALIGN.v128, ...uleb(offset));
  }
  v128Zero(): this {
    return this.simd(0x0c, ...new Array<number>(16).fill(0));
  }

  // f32x4
  f32x4Splat(): this {
    return this.simd(0x13);
  }
  f32x4ExtractLane(lane: number): this {
    return this.simd(0x1f, lane);
  }
  /** Replaces one lane (stack: v128 f32 → v128). */
  f32x4ReplaceLane(lane: number): this {
    return this.simd(0x20, lane);
  }
  f32x4Add(): this {
    return this.simd(0xe4);
  }
  f32x4Sub(): this {
    return this.simd(0xe5);
  }
  f32x4Mul(): this {
    return this.simd(0xe6);
  }
  f32x4Div(): this {
    return this.simd(0xe7);
  }
  f32x4Min(): this {
    return this.simd(0xe8);
  }
  f32x4Max(): this {
    return this.simd(0xe9);
  }
  f32x4Sqrt(): this {
    return this.simd(0xe3);
  }
  /** Round to nearest, ties to even. */
  f32x4Nearest(): this {
    return this.simd(0x6a);
  }
  /** f32x4 → i32x4, truncating toward zero, saturating. */
  i32x4TruncSatF32x4S(): this {
    return this.simd(0xf8);
  }
  i32x4Add(): this {
    return this.simd(0xae);
  }
  /** i32x4 lanes shifted left by an i32 count (stack: v count). */
  i32x4Shl(): this {
    return this.simd(0xab);
  }
  i32x4Splat(): this {
    return this.simd(0x11);
  }
  /**
   * Relaxed-SIMD fused multiply-add `a·b + c` (stack: a b c). Shipped in V8 11.4+ (Node 22);
   * Node 20 needs --experimental-wasm-relaxed-simd. Feature-detect with {@link relaxedSimdSupported}.
   */
  f32x4RelaxedMadd(): this {
    return this.simd(0x105);
  }
  /** Pseudo-min `b < a ? b : a`: one minps, unlike f32x4.min's NaN-propagating sequence. */
  f32x4Pmin(): this {
    return this.simd(0xea);
  }
  /** Pseudo-max `a < b ? b : a`: one maxps. */
  f32x4Pmax(): this {
    return this.simd(0xeb);
  }

  // control flow. `body` receives the builder; br depths are relative as in the spec.
  block(body: (f: this) => void): this {
    this.op(0x02, 0x40);
    body(this);
    return this.op(0x0b);
  }
  loop(body: (f: this) => void): this {
    this.op(0x03, 0x40);
    body(this);
    return this.op(0x0b);
  }
  if(then: (f: this) => void, otherwise?: (f: this) => void): this {
    this.op(0x04, 0x40);
    then(this);
    if (otherwise) {
      this.op(0x05);
      otherwise(this);
    }
    return this.op(0x0b);
  }
  br(depth: number): this {
    return this.op(0x0c, ...uleb(depth));
  }
  brIf(depth: number): this {
    return this.op(0x0d, ...uleb(depth));
  }
  return(): this {
    return this.op(0x0f);
  }

  /**
   * `for (v = start; v < end; v += step) body` over i32 locals, as block+loop with the test at
   * the top (zero iterations when start >= end). `start`/`end`/`step` push one i32 each.
   */
  for(
    v: string,
    start: (f: this) => void,
    end: (f: this) => void,
    step: number | ((f: this) => void),
    body: (f: this) => void,
  ): this {
    this.local(v, "i32");
    start(this);
    this.set(v);
    return this.block((f) => {
      f.loop((g) => {
        g.get(v);
        end(g);
        g.i32GeS().brIf(1);
        body(g);
        g.get(v);
        if (typeof step === "number") g.i32(step);
        else step(g);
        g.i32Add().set(v).br(0);
      });
    });
  }

  /** `for (v = 0; v < end; v += step) body`, `end` a local's name or code that pushes it. */
  forUp(
    v: string,
    end: string | ((f: this) => void),
    step: number | ((f: this) => void),
    body: (f: this) => void,
  ): this {
    return this.for(
      v,
      (f) => f.i32(0),
      typeof end === "string" ? (f) => f.get(end) : end,
      step,
      body,
    );
  }

  // common idioms of the kernels (each is the instruction sequence its comment spells)

  /** local `name` += `by` (a constant, or another local's name). */
  inc(name: string, by: number | string): this {
    this.get(name);
    if (typeof by === "number") this.i32(by);
    else this.get(by);
    return this.i32Add().set(name);
  }

  /** Pushes local `base` + local `index` (a byte address). */
  addr(base: string, index: string): this {
    return this.get(base).get(index).i32Add();
  }

  /** Pushes 4·local `name` (floats → bytes, as a shift). */
  bytes(name: string): this {
    return this.get(name).i32(2).i32Shl();
  }

  /** Pushes min(a, b) (signed i32), each operand pushed by its emitter (each emitted twice). */
  minS(a: (f: this) => void, b: (f: this) => void): this {
    a(this);
    b(this);
    a(this);
    b(this);
    return this.i32LtS().select();
  }

  /** Encoded function body (locals + expression). */
  encodeBody(): number[] {
    const groups: number[][] = [];
    for (const t of this.extraLocals) groups.push([1, VALTYPE[t]]);
    const body = [...vec(groups), ...this.code, 0x0b];
    return [...uleb(body.length), ...body];
  }

  typeKey(): string {
    return `${this.params.map(([, t]) => t).join(",")}->${this.results.join(",")}`;
  }

  encodeType(): number[] {
    return [
      0x60,
      ...vec(this.params.map(([, t]) => [VALTYPE[t]])),
      ...vec(this.results.map((t) => [VALTYPE[t]])),
    ];
  }
}

export interface MemoryImport {
  module: string;
  name: string;
  /** In 64 KiB pages. */
  initial: number;
  maximum: number;
  shared: boolean;
}

export class ModuleBuilder {
  private readonly funcs: FuncBuilder[] = [];

  constructor(private readonly memory: MemoryImport) {}

  func(
    name: string,
    params: [string, ValType][],
    results: ValType[],
    opts: { exported?: boolean } = {},
  ): FuncBuilder {
    const f = new FuncBuilder(name, params, results, opts.exported ?? true);
    f.funcIndexOf = (g) => {
      const i = this.funcs.indexOf(g);
      if (i < 0) throw new Error(`function ${g.name} is not in this module`);
      return i;
    };
    this.funcs.push(f);
    return f;
  }

  encode(): Uint8Array {
    const section = (id: number, payload: number[]) => [id, ...uleb(payload.length), ...payload];
    const typeKeys: string[] = [];
    const types: number[][] = [];
    const funcType: number[] = [];
    for (const f of this.funcs) {
      const k = f.typeKey();
      let i = typeKeys.indexOf(k);
      if (i < 0) {
        i = typeKeys.length;
        typeKeys.push(k);
        types.push(f.encodeType());
      }
      funcType.push(i);
    }
    const m = this.memory;
    const limits = [m.shared ? 0x03 : 0x01, ...uleb(m.initial), ...uleb(m.maximum)];
    const imports = vec([[...str(m.module), ...str(m.name), 0x02, ...limits]]);
    const exports = vec(
      this.funcs.flatMap((f, i) => (f.exported ? [[...str(f.name), 0x00, ...uleb(i)]] : [])),
    );
    const bytes = [
      0x00,
      0x61,
      0x73,
      0x6d,
      0x01,
      0x00,
      0x00,
      0x00,
      ...section(1, vec(types)),
      ...section(2, imports),
      ...section(3, vec(funcType.map((t) => uleb(t)))),
      ...section(7, exports),
      ...section(10, vec(this.funcs.map((f) => f.encodeBody()))),
    ];
    return Uint8Array.from(bytes);
  }
}

/** Whether this engine validates relaxed-SIMD (f32x4.relaxed_madd). */
export function relaxedSimdSupported(): boolean {
  const m = new ModuleBuilder({
    module: "env",
    name: "memory",
    initial: 1,
    maximum: 1,
    shared: false,
  });
  const f = m.func("t", [], []);
  f.v128Zero().v128Zero().v128Zero().f32x4RelaxedMadd().drop();
  return WebAssembly.validate(m.encode());
}
