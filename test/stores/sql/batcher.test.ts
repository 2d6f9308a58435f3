import { describe, expect, it } from 'vitest';
import { type BatchEntry, Batcher, BatchSlots } from '../../../packages/payonce/src/stores/sql/batcher.js';

/** A batcher over fake runners that record what each was given and answer `item * 10`. */
function recordingBatcher(max = 2) {
  const batches: number[][] = [];
  const alone: number[] = [];
  const slots = new BatchSlots(max);
  const batcher = new Batcher<number, number>(
    slots,
    8,
    async (entries: readonly BatchEntry<number, number>[]) => {
      batches.push(entries.map((entry) => entry.item));
      for (const entry of entries) entry.resolve(entry.item * 10);
    },
    async (item) => {
      alone.push(item);
      if (item < 0) throw new Error(`bad item ${item}`);
      return item * 10;
    },
  );
  return { batcher, batches, alone };
}

describe('Batcher', () => {
  it('sends a call that is alone in its batch through the single runner (no batch bookkeeping)', async () => {
    const { batcher, batches, alone } = recordingBatcher();
    expect(await batcher.submit(1)).toBe(10);
    expect(await batcher.submit(2)).toBe(20);
    expect(alone).toEqual([1, 2]);
    expect(batches).toEqual([]);
  });

  it('sends calls made together as one batch through the batch runner', async () => {
    const { batcher, batches, alone } = recordingBatcher();
    expect(await Promise.all([batcher.submit(1), batcher.submit(2), batcher.submit(3)])).toEqual([10, 20, 30]);
    expect(batches).toEqual([[1, 2, 3]]);
    expect(alone).toEqual([]);
  });

  it('rejects only the lone caller whose single run failed', async () => {
    const { batcher } = recordingBatcher();
    await expect(batcher.submit(-1)).rejects.toThrow('bad item -1');
    expect(await batcher.submit(4)).toBe(40);
  });

  it('queues calls behind busy slots and sends them together once one is free', async () => {
    const { batcher, batches, alone } = recordingBatcher(1);
    const first = batcher.submit(1);
    await Promise.resolve(); // the first call's batch (alone) has started and holds the only slot
    await Promise.resolve();
    const later = [batcher.submit(2), batcher.submit(3)];
    expect(await Promise.all([first, ...later])).toEqual([10, 20, 30]);
    expect(alone).toEqual([1]);
    expect(batches).toEqual([[2, 3]]);
  });
});
