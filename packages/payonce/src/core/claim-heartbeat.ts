import type { RequestKey } from './request-key.js';
import type { Store } from './store.js';

/** What a heartbeat needs: the store, the claim it renews, its interval and the guard's time and error sink. */
export interface ClaimHeartbeatInit {
  readonly store: Store & Required<Pick<Store, 'renewClaim'>>;
  readonly key: RequestKey;
  /** The claim's fencing token (attempt number). */
  readonly attempt: number;
  /** Interval between renewals, ms (positive). */
  readonly everyMs: number;
  /** The guard's clock, as whole Unix epoch ms. */
  readonly now: () => number;
  /** Called with the store's error when one renewal could not be made (the next beat tries again). */
  readonly onError: (error: unknown) => void;
}

/**
 * Renews one running claim's lease every `everyMs` (`Store.renewClaim`) until `stop()`. A renewal the store refuses
 * means the claim was taken over, finished or purged: `lost` turns true and the heartbeat ends. A renewal that throws
 * (store down) is reported and tried again at the next beat. Renewals never overlap (each beat is scheduled after the
 * previous one settled), and the timer never keeps the process alive (`unref`).
 * @see docs/design.md §3 "Leases and heartbeats".
 */
export class ClaimHeartbeat {
  /** True once the store refused a renewal: the claim is no longer this owner's. */
  lost = false;
  private stopped = false;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly init: ClaimHeartbeatInit) {
    this.schedule();
  }

  /** Ends the heartbeat; safe to call more than once. A renewal in flight settles without effect. */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.beat(), this.init.everyMs);
    this.timer.unref?.();
  }

  private async beat(): Promise<void> {
    const { store, key, attempt, now, onError } = this.init;
    try {
      if (!(await store.renewClaim({ key, attempt, nowMs: now() }))) {
        this.lost = true;
        this.stopped = true;
        return;
      }
    } catch (error) {
      if (!this.stopped) onError(error);
    }
    this.schedule();
  }
}
