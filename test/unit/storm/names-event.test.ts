import { describe, expect, it } from 'vitest';
import { namesEvent } from '../../../packages/storm/src/scenarios/forgery-scenarios.js';

// With Standard Webhooks signing the reference service journals `standard-webhooks:msg_…`, so the journal checks of
// scenarios 11 and 18, comparing ids exactly, never matched an entry and checked nothing.
describe('namesEvent', () => {
  it('matches an event id as the app journals it: the same, or qualified with a prefix', () => {
    expect(namesEvent('evt_1Abc', 'evt_1Abc')).toBe(true);
    expect(namesEvent('standard-webhooks:msg_2Xyz', 'msg_2Xyz')).toBe(true);
  });

  it('does not match another event, a longer id, or no id', () => {
    expect(namesEvent('evt_1Abc', 'evt_1Ab')).toBe(false);
    expect(namesEvent('standard-webhooks:msg_2Xyz9', 'msg_2Xyz')).toBe(false);
    expect(namesEvent(null, 'msg_2Xyz')).toBe(false);
  });
});
