import { describe, expect, it } from 'vitest';
import { waitForQuietStart } from '../lib/quiet-start.js';

/** A machine whose load average reads `loads` in turn (the last one from then on); sleeping only counts. */
function machine(loads: number[]) {
  const lines: string[] = [];
  const slept: number[] = [];
  let look = 0;
  return {
    lines,
    slept,
    options: {
      load: () => loads[Math.min(look++, loads.length - 1)]!,
      sleep: async (ms: number) => {
        slept.push(ms);
      },
      log: (line: string) => lines.push(line),
      below: 1.5,
      maxMs: 20_000,
      pollMs: 5_000,
    },
  };
}

describe('waitForQuietStart', () => {
  it('starts at once, silently, on a quiet machine', async () => {
    const m = machine([0.4]);
    expect(await waitForQuietStart(m.options)).toBe(0);
    expect(m.slept).toEqual([]);
    expect(m.lines).toEqual([]);
  });

  it('waits until the load average falls below the bound, and says how long', async () => {
    const m = machine([4.9, 3.2, 2.1, 1.2]);
    expect(await waitForQuietStart(m.options)).toBe(15_000);
    expect(m.slept).toEqual([5_000, 5_000, 5_000]);
    expect(m.lines).toEqual(['load average 4.90 → 1.20 after 15 s (quiet; waited for < 1.5)']);
  });

  it('gives up after maxMs on a machine that stays busy, and starts anyway', async () => {
    const m = machine([3, 3]);
    expect(await waitForQuietStart(m.options)).toBe(20_000);
    expect(m.slept).toHaveLength(4);
    expect(m.lines[0]).toMatch(/still busy, starting anyway after 20 s/);
  });
});
