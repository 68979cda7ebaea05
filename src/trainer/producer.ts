/**
 * The group producer: hands the trainer batches of generated groups (one task × groupSize
 * rollouts each) and decides when each group is launched, so that no group is trained more than
 * `staleness` weight versions after the weights it was sampled with.
 *
 * With s steps done by this process and B groups a batch, a group is launched while
 *
 *     groups launched < (s + 1 + staleness) × B
 *
 * (and while fewer than `maxInFlight` are generating, and the steps left need more). A batch
 * first waits for every group launched at a weight version ≤ current − staleness (they would get
 * too stale), then fills up with finished groups, oldest launch first; when `maxInFlight` is below
 * a batch, its remaining groups are launched as others finish. Synchronous (on-policy)
 * training is staleness 0: a batch is launched, trained, and only then is the next launched.
 *
 * Every task the loader hands out is either launched or skipped (trainer.skipSettled); skipped
 * tasks are consumed with the next step, so the loader's frontier passes them once.
 */
import { isSettledGroup } from "../algorithms/filters.js";
import type { Episode } from "../types/index.js";
import type { LoadedTask, LoaderState, TaskLoader } from "./loader.js";

/** One task's rollouts, as generated. */
export interface Group {
  loaded: LoadedTask;
  /** The weight version the group was launched at. */
  launchVersion: number;
  episodes: Episode[];
  /** Rollout failures from the engine (agent errors, timeouts, infra). */
  errors: number;
}

interface InFlight {
  launchVersion: number;
  done: boolean;
  result?: Group;
  promise: Promise<Group>;
}

/**
 * The error to stop with when every rollout in `episodes` failed (agent error, timeout, gateway or
 * model server down): a step or a validation without one finished rollout means the setup is
 * broken, and going on would only burn through the data with nothing learned.
 */
export function rolloutFailure(episodes: readonly Episode[], what: string): Error | undefined {
  if (episodes.length === 0) return undefined;
  const failed = (e: Episode) =>
    e.infraFailed || e.terminationReason === "error" || e.terminationReason === "timeout";
  if (!episodes.every(failed)) return undefined;
  const first = episodes.find((e) => e.error)?.error ?? episodes[0]!.terminationReason;
  return new Error(
    `every rollout of ${what} failed (${episodes.length} of ${episodes.length}); the first error: ${first}. ` +
      "Check the agent, the evaluator and the model server, then run again (--resume continues from the last checkpoint).",
  );
}

/**
 * trainer.skipSettled: a task whose last trained group was settled (every reward alike) is
 * skipped with probability p when it comes round again, one seeded draw per visit, so a resumed
 * run skips the same tasks. When every task of the set is settled, none is skipped.
 */
export class SettledTasks {
  readonly settled: Set<string>;
  private skipsInARow = 0;

  constructor(
    private readonly p: number,
    private readonly taskCount: number,
    /** The uniform draw in [0, 1) of a task's visit (its ordinal). */
    private readonly draw: (ordinal: number) => number,
    settled: readonly string[] = [],
  ) {
    this.settled = new Set(settled);
  }

  /** Whether to skip this visit of a task (counted: a run of skips ends at the set's size). */
  skips(t: LoadedTask): boolean {
    const skip =
      this.p > 0 &&
      this.settled.has(t.task.id) &&
      this.skipsInARow < this.taskCount && // else every task is settled
      this.draw(t.ordinal) < this.p;
    this.skipsInARow = skip ? this.skipsInARow + 1 : 0;
    return skip;
  }

  /** Records which trained groups were settled. */
  record(groups: readonly Group[]): void {
    for (const g of groups)
      if (isSettledGroup(g.episodes)) this.settled.add(g.loaded.task.id);
      else this.settled.delete(g.loaded.task.id);
  }

  /** For the checkpoint: the settled ids, sorted; undefined when the knob is off and none are. */
  state(): string[] | undefined {
    return this.p > 0 || this.settled.size > 0 ? [...this.settled].sort() : undefined;
  }
}

interface GroupProducerOptions {
  loader: TaskLoader;
  batchSize: number;
  staleness: number;
  /** Groups this process launches at most (the steps left × batchSize). */
  maxGroups: number;
  /** Groups generating at once at most. */
  maxInFlight: number;
  settled: SettledTasks;
  /** Starts generating one group. */
  generate: (loaded: LoadedTask, launchVersion: number) => Promise<Group>;
}

export class GroupProducer {
  private readonly inFlight: InFlight[] = [];
  private launched = 0;
  private stepsDone = 0;
  private exhausted = false;
  /** Tasks handed out and skipped since the last step (consumed with the next one). */
  private skipped: LoadedTask[] = [];

  constructor(private readonly o: GroupProducerOptions) {}

  /** Finished groups not yet in a batch. */
  get ready(): number {
    return this.inFlight.filter((f) => f.done).length;
  }

  /** Launches groups at weight version `version` while the staleness rule allows. */
  fill(version: number): void {
    const { batchSize, staleness } = this.o;
    while (
      !this.exhausted &&
      this.launched < (this.stepsDone + 1 + staleness) * batchSize &&
      this.launched < this.o.maxGroups &&
      this.inFlight.filter((f) => !f.done).length < this.o.maxInFlight
    ) {
      const next = this.nextTask();
      if (!next) break;
      this.inFlight.push(this.launch(next, version));
      this.launched++;
    }
  }

  /** The next task to launch: skipped ones are set aside; undefined when the data is used up. */
  private nextTask(): LoadedTask | undefined {
    while (!this.exhausted) {
      const next = this.o.loader.take();
      if (!next) this.exhausted = true;
      else if (this.o.settled.skips(next)) this.skipped.push(next);
      else return next;
    }
    return undefined;
  }

  /**
   * An extra draw for the batch being built (rejection sampling): `n` more groups at weight
   * version `version`, at most `maxInFlight` generating at once; returns them in launch order once
   * all are done (fewer when the data runs out). On-policy only: nothing else may be in flight.
   */
  async draw(n: number, version: number): Promise<Group[]> {
    const out: Group[] = [];
    let i = 0;
    const worker = async () => {
      while (i < n) {
        const next = this.nextTask();
        if (!next) return;
        const at = i++;
        out[at] = await this.o.generate(next, version);
      }
    };
    await Promise.all(Array.from({ length: Math.min(n, this.o.maxInFlight) }, worker));
    return out.filter((g) => g !== undefined);
  }

  private launch(loaded: LoadedTask, launchVersion: number): InFlight {
    const f: InFlight = {
      launchVersion,
      done: false,
      promise: this.o.generate(loaded, launchVersion).then((g) => {
        f.done = true;
        f.result = g;
        return g;
      }),
    };
    return f;
  }

  /**
   * The next batch at weight version `version`: every group that must not wait longer, then
   * finished groups oldest launch first, up to batchSize. Empty when the data is used up.
   */
  async nextBatch(version: number): Promise<Group[]> {
    const { batchSize, staleness } = this.o;
    const inFlight = this.inFlight;
    const mustWait = inFlight.filter((f) => f.launchVersion <= version - staleness);
    await Promise.all(mustWait.map((f) => f.promise));
    const batch: InFlight[] = [];
    const take = (f: InFlight) => {
      batch.push(f);
      inFlight.splice(inFlight.indexOf(f), 1);
    };
    for (const f of mustWait.slice(0, batchSize)) take(f);
    while (batch.length < batchSize) {
      // under an engine.concurrency below one batch, the batch's later groups start as earlier
      // ones finish (otherwise a step's fill already launched the whole batch)
      if (batch.length + inFlight.length < batchSize) this.fill(version);
      if (inFlight.length === 0) break;
      const ready = inFlight
        .filter((f) => f.done)
        .sort((a, b) => a.launchVersion - b.launchVersion);
      if (ready.length) {
        take(ready[0]!);
        continue;
      }
      await Promise.race(inFlight.map((f) => f.promise));
    }
    return batch.map((f) => f.result!);
  }

  /**
   * Records that a step trained `groups`: their tasks, those of the groups it generated and
   * rejected, and the skipped ones handed out since the last step count as consumed. Returns the
   * skipped tasks.
   */
  commit(groups: readonly Group[], rejected: readonly Group[] = []): { skipped: LoadedTask[] } {
    const skipped = this.skipped;
    this.skipped = [];
    this.o.loader.markTrained([
      ...groups.map((g) => g.loaded.ordinal),
      ...rejected.map((g) => g.loaded.ordinal),
      ...skipped.map((t) => t.ordinal),
    ]);
    this.o.settled.record([...groups, ...rejected]);
    this.stepsDone++;
    return { skipped };
  }

  /** Waits for every group still generating (their tasks stay unconsumed). */
  async drain(): Promise<void> {
    await Promise.allSettled(this.inFlight.map((f) => f.promise));
  }

  loaderState(): LoaderState {
    return this.o.loader.state();
  }
}
