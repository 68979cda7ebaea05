/**
 * Progress of a run: a one-line bar redrawn in place on a TTY (done/total, rate, mean reward so far,
 * errors), plain lines at most every few seconds otherwise (logs, CI).
 */
export interface ProgressState {
  done: number;
  meanReward: number | null;
  errors: number;
}

export interface Progress {
  start(total: number): void;
  update(state: ProgressState): void;
  finish(): void;
}

export interface ProgressOptions {
  label?: string;
  stream?: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  /** Force the TTY bar on or off (default: the stream's isTTY). */
  tty?: boolean;
  /** Plain mode: seconds between lines (default 5). */
  intervalSeconds?: number;
  now?: () => number;
}

export function createProgress(options: ProgressOptions = {}): Progress {
  const stream = options.stream ?? process.stderr;
  const tty = options.tty ?? Boolean(stream.isTTY);
  const label = options.label ?? "rollouts";
  const now = options.now ?? (() => Date.now());
  const interval = (options.intervalSeconds ?? 5) * 1000;
  let total = 0;
  let startedAt = 0;
  let lastLine = 0;
  let last: ProgressState = { done: 0, meanReward: null, errors: 0 };

  const line = (s: ProgressState): string => {
    const secs = Math.max((now() - startedAt) / 1000, 1e-9);
    const rate = s.done / secs;
    const reward = s.meanReward === null ? "–" : s.meanReward.toFixed(3);
    return `${s.done}/${total} ${label}  ${rate.toFixed(1)}/s  reward ${reward}  errors ${s.errors}`;
  };

  return {
    start(n) {
      total = n;
      startedAt = now();
      lastLine = startedAt;
      if (!tty) stream.write(`${label}: ${n} to run\n`);
    },
    update(s) {
      last = s;
      if (tty) {
        const width = Math.max(10, Math.min(30, (stream.columns ?? 80) - 60));
        const filled = total ? Math.round((s.done / total) * width) : width;
        stream.write(`\r[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${line(s)}\x1b[K`);
      } else if (now() - lastLine >= interval || s.done === total) {
        lastLine = now();
        stream.write(`${line(s)}\n`);
      }
    },
    finish() {
      if (tty) stream.write(`\r${line(last)}\x1b[K\n`);
    },
  };
}
