/** A fake server's weight state (option `weightSync`): what weights.ts's routes change. */
import type { FakeWeights } from "./types.js";

export type WeightState = FakeWeights & {
  /** Generation requests in progress (SGLang's update waits for them). */
  running: number;
  /** The injected failure message of the next call of `route`, if one is queued. */
  takeFailure(route: string): string | undefined;
  /** The delay queued for the next call of `route` (0 when none), taken. */
  takeDelay(route: string): number;
  /** Calls `go` now, or once generation may run again. */
  whenOpen(go: () => void): void;
  hold(held: boolean): void;
};

export function fakeWeights(): WeightState {
  let held = false;
  const waiting: (() => void)[] = [];
  const failures: { route: string; times: number; message: string }[] = [];
  const delays = new Map<string, number>();
  const w = {
    adapters: new Map<string, string>(),
    paused: false,
    modelPath: null as string | null,
    transfer: { initialized: false, active: false, session: null } as FakeWeights["transfer"],
    calls: [] as FakeWeights["calls"],
    running: 0,
    failNext(route: string, times: number, message: string) {
      failures.push({ route, times, message });
    },
    slowNext(route: string, ms: number) {
      delays.set(route, ms);
    },
    takeDelay(route: string): number {
      const ms = delays.get(route) ?? 0;
      delays.delete(route);
      return ms;
    },
    takeFailure(route: string): string | undefined {
      const f = failures.find((x) => x.route === route && x.times > 0);
      if (!f) return undefined;
      f.times--;
      return f.message;
    },
    whenOpen(go: () => void) {
      if (w.paused || held) waiting.push(go);
      else go();
    },
    hold(h: boolean) {
      held = h;
      if (!w.paused && !held) for (const go of waiting.splice(0)) go();
    },
  };
  return w;
}
