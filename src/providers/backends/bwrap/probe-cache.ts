/**
 * Remembers the answer of a confinement probe. A success holds for the host's
 * lifetime. A failure is asked again at once (a probe can fail on a passing
 * cause: a Docker overlay mount that vanished while bwrap remounted `/`), and a
 * failure that repeats is held only for `holdFailureMs`, so a busy host is not
 * re-probed on every call while a fixed cause stops blocking calls soon after.
 */
export class ProbeCache {
  private success = false;
  private failure: { readonly reason: string; readonly until: number } | undefined;

  constructor(
    private readonly probe: () => string | null,
    private readonly holdFailureMs = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** `null` when the confinement works, else why it does not. */
  reason(): string | null {
    if (this.success) return null;
    if (this.failure && this.now() < this.failure.until) return this.failure.reason;
    const first = this.probe();
    const reason = first === null ? null : this.probe();
    if (reason === null) {
      this.success = true;
      this.failure = undefined;
      return null;
    }
    this.failure = { reason, until: this.now() + this.holdFailureMs };
    return reason;
  }
}
