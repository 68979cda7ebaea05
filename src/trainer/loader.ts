/**
 * The training task loader: epochs over the dataset in a seeded order, handing out tasks one at a
 * time, and the consumed-task frontier a checkpoint needs to resume without losing a task or
 * training one twice.
 *
 * Every task handed out has an ordinal o = epoch·N + position (position in that epoch's seeded
 * permutation). A task is *trained* once the optimizer step that used it ran. Tasks are trained out
 * of order in async mode (groups finish in any order), so the state is
 *
 *   frontier F: every ordinal below F was trained;
 *   beyond:     the trained ordinals ≥ F (empty in synchronous mode at a step boundary).
 *
 * Resuming from {F, beyond} hands out F, F+1, … again, skipping `beyond`: tasks handed out but not
 * trained before the checkpoint (in flight, or in a step the crash lost) are handed out again;
 * trained ones never are.
 */
import { epochOrderSeed, seededPermutation } from "../random.js";
import type { Task } from "../types/index.js";

export interface LoaderState {
  frontier: number;
  beyond: number[];
}

export interface LoadedTask {
  task: Task;
  ordinal: number;
  epoch: number;
}

export class TaskLoader {
  private readonly orders = new Map<number, number[]>();
  private next: number;
  private frontier: number;
  private readonly beyond: Set<number>;

  constructor(
    private readonly tasks: readonly Task[],
    private readonly seed: number,
    /** Epochs to run; Infinity for as many as the trainer asks. */
    private readonly epochs: number,
    state: LoaderState = { frontier: 0, beyond: [] },
  ) {
    if (tasks.length === 0) throw new Error("the training set is empty");
    this.frontier = state.frontier;
    this.beyond = new Set(state.beyond.filter((o) => o >= state.frontier));
    this.next = state.frontier;
  }

  /** Ordinals past the last epoch: none left. */
  get total(): number {
    return this.epochs * this.tasks.length;
  }

  private order(epoch: number): number[] {
    let o = this.orders.get(epoch);
    if (!o) {
      o = seededPermutation(this.tasks.length, epochOrderSeed(this.seed, epoch));
      this.orders.set(epoch, o);
      if (this.orders.size > 4) this.orders.delete(Math.min(...this.orders.keys()));
    }
    return o;
  }

  /** The task at an ordinal. */
  at(ordinal: number): LoadedTask {
    const N = this.tasks.length;
    const epoch = Math.floor(ordinal / N);
    return { task: this.tasks[this.order(epoch)[ordinal % N]!]!, ordinal, epoch };
  }

  /** The next task to hand out, or undefined when the epochs are done. */
  take(): LoadedTask | undefined {
    while (this.beyond.has(this.next)) this.next++;
    if (this.next >= this.total) return undefined;
    return this.at(this.next++);
  }

  /** Records that the step using these ordinals ran. */
  markTrained(ordinals: Iterable<number>): void {
    for (const o of ordinals) if (o >= this.frontier) this.beyond.add(o);
    while (this.beyond.has(this.frontier)) {
      this.beyond.delete(this.frontier);
      this.frontier++;
    }
  }

  state(): LoaderState {
    return { frontier: this.frontier, beyond: [...this.beyond].sort((a, b) => a - b) };
  }
}
