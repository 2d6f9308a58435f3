import { describe, expect, it } from 'vitest';
import { cpuTicksOf, waitForIdleHost } from '../lib/idle-host.js';

/** A host whose CPUs are idle `shares[i]` of window i (the last share from then on), 100 ticks a window. */
function host(shares: number[]) {
  const lines: string[] = [];
  let total = 0;
  let idle = 0;
  let window = 0;
  return {
    lines,
    windows: () => window,
    options: {
      ticks: () => ({ total, idle }),
      sleep: async () => {
        const share = shares[Math.min(window++, shares.length - 1)]!;
        total += 100;
        idle += share * 100;
      },
      log: (line: string) => lines.push(line),
      minIdle: 0.9,
      windowMs: 1_000,
      maxMs: 5_000,
    },
  };
}

describe('cpuTicksOf', () => {
  it('reads total and idle (idle + iowait) ticks of the cpu line of /proc/stat', () => {
    const stat = 'cpu  100 5 50 800 20 3 2 0 0 0\ncpu0 50 2 25 400 10 1 1 0 0 0\nintr 1 2 3\n';
    expect(cpuTicksOf(stat)).toEqual({ total: 980, idle: 820 });
  });

  it('counts steal as busy and does not count guest time twice (it is already inside user and nice)', () => {
    const stat = 'cpu  100 5 50 800 20 3 2 7 40 4\n';
    expect(cpuTicksOf(stat)).toEqual({ total: 987, idle: 820 });
  });

  it('refuses text without a cpu line', () => {
    expect(() => cpuTicksOf('intr 1 2 3\n')).toThrow(/no "cpu" line/);
  });
});

describe('waitForIdleHost', () => {
  it('goes on after one window, silently, when the host is idle', async () => {
    const h = host([0.97]);
    expect(await waitForIdleHost(h.options)).toBe(0);
    expect(h.windows()).toBe(1);
    expect(h.lines).toEqual([]);
  });

  it('waits window by window while the last target leaves work behind, and says how long', async () => {
    const h = host([0.35, 0.6, 0.8, 0.95]);
    expect(await waitForIdleHost(h.options)).toBe(3_000);
    expect(h.windows()).toBe(4);
    expect(h.lines).toEqual(['  host CPU idle 35 % → 95 % after 3 s (settled; waited for ≥ 90 %)']);
  });

  it('takes a window in which no tick passed for an idle one', async () => {
    const h = host([0.97]);
    const frozen = { ...h.options, ticks: () => ({ total: 5, idle: 1 }) };
    expect(await waitForIdleHost(frozen)).toBe(0);
  });

  it('needs the idle share to reach minIdle, not only to come near it', async () => {
    const h = host([0.89, 0.9]);
    expect(await waitForIdleHost(h.options)).toBe(1_000);
    expect(h.lines[0]).toMatch(/idle 89 % → 90 % after 1 s \(settled/);
  });

  it('gives up after maxMs on a host that stays busy, and goes on', async () => {
    const h = host([0.5]);
    expect(await waitForIdleHost(h.options)).toBe(5_000);
    expect(h.windows()).toBe(6);
    expect(h.lines[0]).toMatch(/idle 50 % → 50 % after 5 s \(still busy, going on after 5 s/);
  });
});
