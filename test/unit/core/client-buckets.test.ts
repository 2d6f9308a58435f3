import { describe, expect, it } from 'vitest';
import { ClientBuckets } from '../../../packages/payonce/src/core/client-buckets.js';
import { ManualClock } from '../../../packages/payonce/src/core/clock.js';

describe('ClientBuckets', () => {
  it('keeps one bucket per client, refilled by the clock, and forgets full buckets before used ones', () => {
    const clock = new ManualClock(1_000);
    const buckets = new ClientBuckets(2, 1, 2, clock); // 2 tokens, 1 back a second, 2 clients at most
    const a = buckets.of('a');
    expect(a.take(2)).toBe(0);
    buckets.keep('a', a);
    expect(buckets.of('a').waitFor(1)).toBe(1_000); // the kept bucket, empty
    const b = buckets.of('b');
    b.spend(5); // never below empty
    buckets.keep('b', b);
    expect(buckets.of('b').waitFor(2)).toBe(2_000);

    clock.advance(2_000); // a and b are full again
    const c = buckets.of('c');
    c.take(1);
    buckets.keep('c', c); // over the bound: the full ones go, the used one stays
    expect(buckets.of('c').waitFor(2)).toBe(1_000);
    const d = buckets.of('d');
    d.take(1);
    buckets.keep('d', d);
    const e = buckets.of('e');
    e.take(1);
    buckets.keep('e', e); // none full: the least recently kept (c) goes
    expect(buckets.of('c').waitFor(2)).toBe(0);
    expect(buckets.of('d').waitFor(2)).toBe(1_000);
  });
});
