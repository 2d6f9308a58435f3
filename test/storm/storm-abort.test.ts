import { describe, expect, it } from 'vitest';
import type { ProviderScenario } from '../../packages/storm/src/provider/provider-scenario.js';
import { runProviderScenarios } from '../../packages/storm/src/provider/run-provider-scenarios.js';
import { runStorm } from '../../packages/storm/src/run-storm.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A scenario run whose only wait is `timeLeftMs()`, as every storm's waits are. */
class WaitingRun {
  private stopped = false;
  private readonly deadline = Date.now() + 60_000;
  constructor(readonly id: number) {}
  timeLeftMs(): number {
    return this.stopped ? 0 : Math.max(0, this.deadline - Date.now());
  }
  fail(): void {}
  async conclude(): Promise<{ id: number; verdict: string }> {
    return { id: this.id, verdict: 'pass' };
  }
  beginRecheck(): boolean {
    return false;
  }
  stop(): void {
    this.stopped = true;
  }
}

describe('storm runs stopped by their signal (the app under test exited)', () => {
  it('runProviderScenarios starts no further scenario, cuts the running ones short and rejects with the reason', async () => {
    const controller = new AbortController();
    const started: number[] = [];
    const waitsEnded: number[] = [];
    let finished = 0;
    const scenario = (id: number): ProviderScenario<WaitingRun, { id: number; verdict: string }> => ({
      id,
      name: `waits ${id}`,
      defends: 'repeated HTTP request',
      criterion: 'waits until its deadline',
      async run(ctx) {
        while (ctx.timeLeftMs() > 0) await sleep(10);
        waitsEnded.push(id);
        return ctx.conclude();
      },
    });
    const run = runProviderScenarios({
      scenarios: [1, 2, 3, 4].map(scenario),
      timeoutMs: 60_000,
      concurrency: 2,
      signal: controller.signal,
      onProgress: (event) => {
        if (event.kind === 'started') started.push(event.id);
        else finished += 1;
        if (started.length === 2) setTimeout(() => controller.abort(new Error('the app exited')), 20);
      },
      open: (s) => new WaitingRun(s.id),
    });
    await expect(run).rejects.toThrow('the app exited');
    expect(started).toEqual([1, 2]); // 3 and 4 never started
    expect(finished).toBe(0); // no verdict on a dead app
    // Their waits end at the next poll, not at the 60 s deadline (the test's own 30 s budget would fail first).
    while (waitsEnded.length < 2) await sleep(10);
    expect(waitsEnded.sort()).toEqual([1, 2]);
  });

  it('runProviderScenarios aborted while it waits to judge the orders again rejects with the reason', async () => {
    const controller = new AbortController();
    class Judged extends WaitingRun {
      override beginRecheck(): boolean {
        return true;
      }
    }
    const run = runProviderScenarios({
      scenarios: [
        {
          id: 1,
          name: 'concludes at once',
          defends: 'repeated HTTP request',
          criterion: 'none',
          run: (ctx: Judged) => ctx.conclude(),
        },
      ],
      timeoutMs: 60_000,
      concurrency: 1,
      settleMs: 60_000,
      signal: controller.signal,
      onProgress: (event) => {
        if (event.kind === 'finished') setTimeout(() => controller.abort(new Error('the app exited')), 20);
      },
      open: (s) => new Judged(s.id),
    });
    await expect(run).rejects.toThrow('the app exited');
  });

  it('runStorm with an aborted signal rejects with its reason before asking the app anything', async () => {
    let asked = 0;
    const app = {
      name: 'never asked',
      health: async () => {
        asked += 1;
      },
      webhookUrl: () => 'http://127.0.0.1:9/webhooks',
      createOrder: () => Promise.reject(new Error('no')),
      startPayment: () => Promise.reject(new Error('no')),
      readOrder: () => Promise.reject(new Error('no')),
    };
    const signal = AbortSignal.abort(new Error('the app exited'));
    await expect(runStorm({ app, provider: 'http://127.0.0.1:9', signal })).rejects.toThrow('the app exited');
    expect(asked).toBe(0);
  });
});
