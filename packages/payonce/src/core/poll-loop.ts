/** What a `PollLoop` runs and how long it sleeps when there was nothing to do. */
export interface PollLoopOptions {
  /**
   * One round of work. Resolves `true` when it did some (the lane polls again at once), `false` when there was
   * nothing to do (the lane sleeps `idleMs`).
   */
  readonly round: () => Promise<boolean>;
  /** The sleep of a lane after an idle or failed round, in milliseconds (a positive integer). */
  readonly idleMs: number;
  /** Lanes running `round` side by side, each one round at a time. @default 1 */
  readonly lanes?: number;
  /** Called with what a round threw; the lane then sleeps `idleMs` and goes on. */
  readonly onError: (error: unknown) => void;
}

/**
 * A wakeable poll loop: `start()` runs `lanes` lanes, each calling `round` again and again and sleeping `idleMs`
 * after a round that found nothing to do or threw (the error goes to `onError`). `wake()` ends every sleep at once
 * (new work is known to be there); `stop()` lets each lane finish its current round, wakes the sleeping ones and
 * resolves when all have ended. The sleeps are plain timers (they keep the process alive while the loop runs).
 * Used by the outbox worker and the outbox relay.
 */
export class PollLoop {
  private readonly options: PollLoopOptions;
  private readonly sleepers = new Set<() => void>();
  private loop: Promise<void> | null = null;
  private stopping = false;

  /** A stopped loop; nothing runs before `start()`. */
  constructor(options: PollLoopOptions) {
    this.options = options;
  }

  /** True between `start()` and the end of `stop()`. */
  get running(): boolean {
    return this.loop !== null;
  }

  /** Starts the lanes. Idempotent: a running loop is left as it is. */
  start(): void {
    if (this.loop) return;
    this.stopping = false;
    const lanes = Array.from({ length: this.options.lanes ?? 1 }, () => this.lane());
    this.loop = Promise.all(lanes).then(() => {});
  }

  /** Ends every lane's sleep now; a lane that is running a round is not disturbed. */
  wake(): void {
    for (const wake of [...this.sleepers]) wake();
  }

  /** Stops every lane after its current round; resolves when all have stopped (at once when not started). */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake();
    await this.loop;
    this.loop = null;
  }

  private async lane(): Promise<void> {
    while (!this.stopping) {
      const busy = await this.options.round().catch((error: unknown) => {
        this.options.onError(error);
        return false;
      });
      if (!busy && !this.stopping) await this.sleep();
    }
  }

  private sleep(): Promise<void> {
    return new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.sleepers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, this.options.idleMs);
      this.sleepers.add(wake);
    });
  }
}
