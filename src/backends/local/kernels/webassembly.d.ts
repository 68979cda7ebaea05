/**
 * The slice of the WebAssembly JS API the kernels use. The project compiles with lib ES2023 and
 * @types/node 20, neither of which declares the `WebAssembly` global (it lives in lib.dom); this
 * keeps the kernels type-checked without pulling in the DOM types. Remove if the project adds
 * "DOM" to `lib` or moves to @types/node ≥ 22.
 */
declare namespace WebAssembly {
  type ImportValue = Memory | ((...args: never[]) => unknown) | number;
  type Imports = Record<string, Record<string, ImportValue>>;
  type Exports = Record<string, unknown>;

  interface MemoryDescriptor {
    initial: number;
    maximum?: number;
    shared?: boolean;
  }
  class Memory {
    constructor(descriptor: MemoryDescriptor);
    readonly buffer: ArrayBuffer | SharedArrayBuffer;
    grow(delta: number): number;
  }
  class Module {
    constructor(bytes: Uint8Array | ArrayBuffer);
  }
  class Instance {
    constructor(module: Module, imports?: Imports);
    readonly exports: Exports;
  }
  function compile(bytes: Uint8Array | ArrayBuffer): Promise<Module>;
  function validate(bytes: Uint8Array | ArrayBuffer): boolean;
}
