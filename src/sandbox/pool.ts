/**
 * Warm sandboxes for many concurrent rollouts and graders. `acquire()` hands out a sandbox made
 * ahead of time with the pool's spec (or makes one with the caller's spec); `release()` resets it
 * (`Sandbox.reset`: every process killed, the work dir back to the spec's snapshot) and keeps it
 * warm, or — where the backend has no reset, the sandbox had a spec of its own or the reset fails —
 * closes it and makes a fresh one in the background. Either way no state passes from one user to
 * the next, and the cost of making a sandbox stays off the caller's path.
 *
 *   pool = new SandboxPool(backend, { size: 2, spec })
 *   const sandbox = await pool.acquire()        // warm when one is ready
 *   try { … } finally { await pool.release(sandbox) }
 *   await pool.use(async (sandbox) => …)        // the same, in one call
 *
 * A spec given to acquire() (e.g. with a task's snapshot) is made on demand: warm sandboxes all
 * share the pool's spec. `maxConcurrent` bounds sandboxes alive at once (warm ones included);
 * further acquire() calls wait in order.
 */
import type { Sandbox, SandboxBackend, SandboxSpec } from "./types.js";
import { SandboxError } from "./types.js";

export interface SandboxPoolOptions {
  /** Warm sandboxes kept ready. */
  size?: number;
  /** The spec of the warm sandboxes (and of acquire() without one). */
  spec?: SandboxSpec;
  /** Sandboxes alive at once; default size + 8. */
  maxConcurrent?: number;
}

export class SandboxPool {
  readonly backend: SandboxBackend;
  private readonly size: number;
  private readonly spec: SandboxSpec;
  private readonly maxConcurrent: number;
  private readonly warm: Promise<Sandbox>[] = [];
  private readonly waiting: (() => void)[] = [];
  private alive = 0;
  private closed = false;
  private readonly inUse = new Set<Sandbox>();
  /** Sandboxes made with the pool's spec (reusable after a reset). */
  private readonly pooled = new WeakSet<Sandbox>();

  constructor(backend: SandboxBackend, options: SandboxPoolOptions = {}) {
    this.backend = backend;
    this.size = options.size ?? 2;
    this.spec = options.spec ?? {};
    this.maxConcurrent = options.maxConcurrent ?? this.size + 8;
    if (!Number.isInteger(this.size) || this.size < 0) {
      throw new SandboxError(`pool size must be an integer ≥ 0, got ${this.size}`);
    }
    if (!Number.isInteger(this.maxConcurrent) || this.maxConcurrent < Math.max(1, this.size)) {
      throw new SandboxError(
        `pool maxConcurrent must be an integer ≥ max(1, size), got ${this.maxConcurrent}`,
      );
    }
    this.refill();
  }

  /** A sandbox for the caller alone, until release(). */
  async acquire(spec?: SandboxSpec): Promise<Sandbox> {
    if (this.closed) throw new SandboxError("the sandbox pool is closed");
    let sandbox: Sandbox;
    const ready = spec === undefined ? this.warm.shift() : undefined;
    if (ready) {
      sandbox = await ready.catch((error) => {
        this.freeSlot();
        this.refill();
        throw error;
      });
      // A sandbox that resets comes back warm at release; one that does not is replaced now.
      if (!sandbox.reset) this.refill();
    } else {
      await this.slot();
      sandbox = await this.backend.create(spec ?? this.spec).catch((error) => {
        this.freeSlot();
        throw error;
      });
    }
    if (this.closed) {
      // closed while this one was being made: it is nobody's to keep
      await sandbox.close();
      throw new SandboxError("the sandbox pool is closed");
    }
    this.inUse.add(sandbox);
    return sandbox;
  }

  /**
   * Keep the sandbox warm, reset in the background (the caller does not wait for it; a reset that
   * fails closes it and makes a new one in its place), or close it and make a warm one.
   */
  async release(sandbox: Sandbox): Promise<void> {
    if (!this.inUse.delete(sandbox)) return;
    const reset = sandbox.reset?.bind(sandbox);
    if (reset && this.pooled.has(sandbox) && this.warm.length < this.size && !this.waiting.length) {
      const ready = reset().then(
        () => sandbox,
        async () => {
          await sandbox.close().catch(() => {});
          return this.make(this.spec);
        },
      );
      ready.catch(() => {}); // surfaced to the acquire() that takes it
      this.warm.push(ready);
      return;
    }
    try {
      await sandbox.close();
    } finally {
      this.freeSlot();
      this.refill();
    }
  }

  /** acquire → fn → release. */
  async use<T>(fn: (sandbox: Sandbox) => Promise<T>, spec?: SandboxSpec): Promise<T> {
    const sandbox = await this.acquire(spec);
    try {
      return await fn(sandbox);
    } finally {
      await this.release(sandbox);
    }
  }

  /** Close every sandbox, warm and in use. */
  async close(): Promise<void> {
    this.closed = true;
    const warm = this.warm.splice(0);
    await Promise.all([
      ...warm.map((p) => p.then((s) => s.close()).catch(() => {})),
      ...[...this.inUse].map((s) => s.close()),
    ]);
    this.inUse.clear();
    for (const wake of this.waiting.splice(0)) wake();
  }

  private refill(): void {
    while (
      !this.closed &&
      this.warm.length < this.size &&
      this.alive < this.maxConcurrent &&
      this.waiting.length === 0
    ) {
      this.alive++;
      const made = this.make(this.spec);
      made.catch(() => {}); // surfaced to the acquire() that takes it
      this.warm.push(made);
    }
  }

  /** A new sandbox with the pool's spec, reusable after a reset. */
  private async make(spec: SandboxSpec): Promise<Sandbox> {
    const sandbox = await this.backend.create(spec);
    this.pooled.add(sandbox);
    return sandbox;
  }

  private async slot(): Promise<void> {
    // A warm sandbox nobody asked for yields its slot to a caller with a spec of its own.
    while (this.alive >= this.maxConcurrent) {
      const idle = this.warm.pop();
      if (idle) {
        this.alive--;
        await idle.then((s) => s.close()).catch(() => {});
        continue;
      }
      await new Promise<void>((wake) => this.waiting.push(wake));
      if (this.closed) throw new SandboxError("the sandbox pool is closed");
    }
    this.alive++;
  }

  private freeSlot(): void {
    this.alive--;
    this.waiting.shift()?.();
  }
}
