import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { PeriodicTask } from '../../../packages/payonce/src/core/periodic-task.js';

describe('PeriodicTask', () => {
  it('runs again after each run ends, never two at once, and goes on after a failing run', async () => {
    let active = 0;
    let overlapped = false;
    let runs = 0;
    const errors: unknown[] = [];
    const task = new PeriodicTask(
      5,
      async () => {
        active += 1;
        overlapped ||= active > 1;
        runs += 1;
        await sleep(15);
        active -= 1;
        if (runs === 2) throw new Error('store down');
      },
      (error) => errors.push(error),
    );
    task.start();
    task.start();
    // Until the third run, however slow a busy machine makes the 5 ms period (no wall-clock bound on the count).
    const deadline = Date.now() + 20_000;
    while (runs < 3 && Date.now() < deadline) await sleep(5);
    await task.stop();
    expect(overlapped).toBe(false);
    expect(runs).toBeGreaterThanOrEqual(3);
    expect(errors).toHaveLength(1);
    expect((errors[0] as Error).message).toBe('store down');
  });

  it('stop() waits for the run in progress and no run starts afterwards', async () => {
    let finished = 0;
    let started = 0;
    const task = new PeriodicTask(1, async () => {
      started += 1;
      await sleep(40);
      finished += 1;
    });
    task.start();
    await sleep(15);
    await task.stop();
    expect(finished).toBe(started);
    const startedAtStop = started;
    await sleep(30);
    expect(started).toBe(startedAtStop);
  });
});
