/** One queued call of a batcher: its input and how to settle the caller's promise. */
export interface BatchEntry<I, R> {
  readonly item: I;
  resolve(result: R): void;
  reject(error: unknown): void;
}

/** Sends one batch: must settle every entry (the batcher rejects those left unsettled when it throws). */
export type BatchRunner<I, R> = (entries: readonly BatchEntry<I, R>[]) => Promise<void>;

/**
 * Sends a batch of ONE call as the unbatched operation would (its own single-row statement), so a caller alone in
 * its batch (concurrency 1) pays no batch bookkeeping: no duplicate grouping, no settle tracking.
 */
export type SingleRunner<I, R> = (item: I) => Promise<R>;

/**
 * The connections the batchers of one store may occupy at once, shared by its claim and completion batchers: a
 * batch starts only while fewer than `max` batches are in flight, and whenever one ends the next waiting batcher
 * (round robin) starts its batch. With `max` = the pool size, no batch waits inside the pool's own queue, where
 * newer calls could not join it.
 */
export class BatchSlots {
  private active = 0;
  private readonly batchers: Batcher<never, never>[] = [];
  private next = 0;

  constructor(readonly max: number) {}

  /** Registers a batcher to be started when a slot is free. */
  add(batcher: Batcher<never, never>): void {
    this.batchers.push(batcher);
  }

  /** Starts batches while slots are free and some batcher has queued calls. */
  fill(): void {
    while (this.active < this.max) {
      const batcher = this.nextWaiting();
      if (batcher === null) return;
      this.active++;
      batcher.startBatch().finally(() => {
        this.active--;
        this.fill();
      });
    }
  }

  private nextWaiting(): Batcher<never, never> | null {
    for (let i = 0; i < this.batchers.length; i++) {
      const batcher = this.batchers[(this.next + i) % this.batchers.length]!;
      if (batcher.queued > 0) {
        this.next = (this.next + i + 1) % this.batchers.length;
        return batcher;
      }
    }
    return null;
  }
}

/**
 * Group commit without a timer window: calls queue while the store's batch slots are busy and go out together, at
 * most `maxBatchSize` per batch, as soon as a slot is free. A call made while a slot is free is sent in the same
 * tick (after the current microtasks, so calls made synchronously together share a batch): at concurrency 1 every
 * batch has one call, and a batch of one goes to `runOne` (the unbatched operation) instead of `run`. Each caller's
 * promise settles only when its batch did. @see docs/design.md §3 "Batched claims
 * and completions".
 */
export class Batcher<I, R> {
  private queue: BatchEntry<I, R>[] = [];
  private scheduled = false;

  constructor(
    private readonly slots: BatchSlots,
    private readonly maxBatchSize: number,
    private readonly run: BatchRunner<I, R>,
    private readonly runOne: SingleRunner<I, R>,
  ) {
    slots.add(this as unknown as Batcher<never, never>);
  }

  /** Calls waiting for a batch. */
  get queued(): number {
    return this.queue.length;
  }

  /** Queues `item`; resolves with its result once the batch carrying it has been sent and settled. */
  submit(item: I): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        queueMicrotask(() => {
          this.scheduled = false;
          this.slots.fill();
        });
      }
    });
  }

  /** Takes up to `maxBatchSize` queued calls and runs them as one batch (called by `BatchSlots`). */
  async startBatch(): Promise<void> {
    const entries = this.queue.length <= this.maxBatchSize ? this.queue : this.queue.slice(0, this.maxBatchSize);
    this.queue = entries === this.queue ? [] : this.queue.slice(this.maxBatchSize);
    if (entries.length === 1) return this.startAlone(entries[0]!);
    const settled = new Set<BatchEntry<I, R>>();
    const tracked = entries.map(
      (entry): BatchEntry<I, R> => ({
        item: entry.item,
        resolve: (result) => {
          settled.add(entry);
          entry.resolve(result);
        },
        reject: (error) => {
          settled.add(entry);
          entry.reject(error);
        },
      }),
    );
    try {
      await this.run(tracked);
    } catch (error) {
      for (const entry of entries) if (!settled.has(entry)) entry.reject(error);
      return;
    }
    const lost = new Error('payonce batch ended without an answer for this call');
    for (const entry of entries) if (!settled.has(entry)) entry.reject(lost);
  }

  private async startAlone(entry: BatchEntry<I, R>): Promise<void> {
    try {
      entry.resolve(await this.runOne(entry.item));
    } catch (error) {
      entry.reject(error);
    }
  }
}
