import { describe, expect, it, vi } from 'vitest';
import { PollLoop } from '../../../packages/payonce/src/core/poll-loop.js';

// The outbox worker's and the relay's loop. Sleeps are a day long: only wake() or stop() can end them, so a test
// that passes cannot have relied on a timer firing.
const DAY_MS = 86_400_000;

/** A round that answers from `script` (true = busy, false = idle, an Error = throws), then idles. */
function scripted(script: (boolean | Error)[]) {
  let calls = 0;
  const round = vi.fn(async () => {
    const next = script[calls++] ?? false;
    if (next instanceof Error) throw next;
    return next;
  });
  return { round, calls: () => calls };
}

describe('PollLoop', () => {
  it('polls again at once after a busy round and sleeps after an idle one until woken', async () => {
    const { round, calls } = scripted([true, true, false, true, false]);
    const loop = new PollLoop({ round, idleMs: DAY_MS, onError: () => {} });
    loop.start();
    await vi.waitFor(() => expect(calls()).toBe(3));
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls()).toBe(3); // asleep after the idle third round
    loop.wake();
    await vi.waitFor(() => expect(calls()).toBe(5));
    await loop.stop();
    expect(loop.running).toBe(false);
  });

  it('stop() ends a sleeping lane at once and lets a running round finish', async () => {
    let release: () => void = () => {};
    let started = 0;
    const loop = new PollLoop({
      round: async () => {
        started++;
        if (started === 2) await new Promise<void>((resolve) => (release = resolve));
        return started === 1;
      },
      idleMs: DAY_MS,
      onError: () => {},
    });
    loop.start();
    await vi.waitFor(() => expect(started).toBe(2));
    let stopped = false;
    const stopping = loop.stop().then(() => (stopped = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(stopped).toBe(false); // the second round is still running
    release();
    await stopping;
    expect(started).toBe(2); // no round after stop()
  });

  it('hands a thrown error to onError and sleeps, then goes on when woken', async () => {
    const boom = new Error('database down');
    const { round, calls } = scripted([boom, true, false]);
    const errors: unknown[] = [];
    const loop = new PollLoop({ round, idleMs: DAY_MS, onError: (error) => errors.push(error) });
    loop.start();
    await vi.waitFor(() => expect(errors).toEqual([boom]));
    expect(calls()).toBe(1);
    loop.wake();
    await vi.waitFor(() => expect(calls()).toBe(3));
    await loop.stop();
  });

  it('runs `lanes` rounds side by side, and start() twice does not add lanes', async () => {
    const releases: (() => void)[] = [];
    const loop = new PollLoop({
      round: () => new Promise<boolean>((resolve) => releases.push(() => resolve(false))),
      idleMs: DAY_MS,
      lanes: 3,
      onError: () => {},
    });
    loop.start();
    loop.start();
    await vi.waitFor(() => expect(releases).toHaveLength(3));
    const stopping = loop.stop();
    for (const release of releases) release();
    await stopping;
    expect(releases).toHaveLength(3);
  });

  it('can be started again after stop()', async () => {
    const { round, calls } = scripted([false, false]);
    const loop = new PollLoop({ round, idleMs: DAY_MS, onError: () => {} });
    loop.start();
    await vi.waitFor(() => expect(calls()).toBe(1));
    await loop.stop();
    loop.start();
    await vi.waitFor(() => expect(calls()).toBe(2));
    await loop.stop();
  });
});
