/**
 * Runs `task` on a timer: the first run `everyMs` after `start()`, each next one `everyMs` after the previous
 * ended, so runs never overlap. A run that throws goes to `onError` and the timer goes on. The timer does not keep
 * the process alive (`unref`). `stop()` cancels the next run and waits for the one in progress.
 */
export class PeriodicTask {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;

  /**
   * @param everyMs pause between the end of one run and the start of the next, in milliseconds.
   * @param task one run.
   * @param onError called with what a run threw.
   */
  constructor(
    private readonly everyMs: number,
    private readonly task: () => Promise<void>,
    private readonly onError?: (error: unknown) => void,
  ) {}

  /** Starts the timer (the first run after `everyMs`). Idempotent. */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule();
  }

  /** Stops the timer and waits for a run in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.task()
        .catch((error: unknown) => this.onError?.(error))
        .finally(() => {
          this.running = null;
          this.schedule();
        });
    }, this.everyMs);
    this.timer.unref();
  }
}
