/**
 * Phase timing of the local model (bench/local-backend.ts, bench/sampler.ts): a {@link PhaseTimer}
 * belongs to one model; while its `profile` is set, forward, backward and decodeStep add the
 * milliseconds of each of their phases into `profile.ms` (GEMM calls under "gemm" or
 * "gemm (attention)" only, not in the phase around them). Unset (the default), each checkpoint
 * costs one branch.
 */

export interface PhaseProfile {
  ms: Record<string, number>;
}

export class PhaseTimer {
  /** Where the phases' milliseconds go; undefined turns timing off. */
  profile: PhaseProfile | undefined;
  /** The phase GEMM time is charged to: "gemm", or "gemm (attention)" inside attention. */
  gemmPhase = "gemm";
  private lapStart = 0;
  private gemmSinceLap = 0;

  constructor(profile?: PhaseProfile) {
    this.profile = profile;
  }

  /** Starts timing (at the top of forward, backward and decodeStep). */
  start(): void {
    if (!this.profile) return;
    this.lapStart = performance.now();
    this.gemmSinceLap = 0;
  }

  /** Charges the time since the last lap (less the GEMMs inside it) to `phase`. */
  lap(phase: string): void {
    const profile = this.profile;
    if (!profile) return;
    const now = performance.now();
    profile.ms[phase] = (profile.ms[phase] ?? 0) + (now - this.lapStart - this.gemmSinceLap);
    this.lapStart = now;
    this.gemmSinceLap = 0;
  }

  /** The start time of a GEMM (or GEMV) call, for {@link gemmDone}; 0 when timing is off. */
  gemmStart(): number {
    return this.profile ? performance.now() : 0;
  }

  /** The GEMM started at t0 (from {@link gemmStart}) is done: its time goes to `gemmPhase`. */
  gemmDone(t0: number): void {
    const profile = this.profile;
    if (!profile) return;
    const d = performance.now() - t0;
    profile.ms[this.gemmPhase] = (profile.ms[this.gemmPhase] ?? 0) + d;
    this.gemmSinceLap += d;
  }
}
