import { describe, expect, it } from 'vitest';
import { millis } from '../../../packages/cli/src/commands/serve.js';
import { InvalidOption } from '../../../packages/payonce/src/core/errors.js';
import { resolveGuardOptions } from '../../../packages/payonce/src/core/guard-options.js';
import { IdempotencyGuard } from '../../../packages/payonce/src/core/idempotency-guard.js';
import { MAX_TIMER_MS, optionsObject, timerMs } from '../../../packages/payonce/src/core/options.js';
import { resolveOutboxWorkerOptions } from '../../../packages/payonce/src/outbox/outbox-worker-options.js';
import { resolveRelayOptions } from '../../../packages/payonce/src/relay/outbox-relay-options.js';
import { MemoryStore } from '../../../packages/payonce/src/stores/memory/memory-store.js';
import { startHousekeeping } from '../../../packages/payonce/src/webhooks/housekeeping.js';

// Node.js runs a timer whose delay is above 2^31 − 1 ms after 1 ms ("Timers": such a delay "will be set to 1"): a
// "30 days" poll interval became a busy loop, a long lease a heartbeat every millisecond, a long timeout an instant
// one. Options that become timers are refused above the limit; ages (retentions, leases) are not timers.

const DAY_MS = 86_400_000;

describe('options that become timers', () => {
  it('accept up to 2^31 − 1 ms and refuse anything above with InvalidOption', () => {
    expect(MAX_TIMER_MS).toBe(2 ** 31 - 1);
    expect(timerMs('pollIntervalMs', MAX_TIMER_MS)).toBe(MAX_TIMER_MS);
    expect(() => timerMs('pollIntervalMs', 2 ** 31)).toThrow(InvalidOption);
    expect(() => timerMs('pollIntervalMs', 2 ** 31)).toThrow(/pollIntervalMs: must be an integer from 1 to 2147483647/);
  });

  it('refuse a 30-day worker poll, relay poll or housekeeping interval', () => {
    expect(() => resolveOutboxWorkerOptions({ pollIntervalMs: 30 * DAY_MS }, 'w')).toThrow(InvalidOption);
    expect(() => resolveOutboxWorkerOptions({ backoffMaxMs: 2 ** 33 }, 'w')).toThrow(InvalidOption);
    expect(() => resolveRelayOptions({ topics: ['t'], pollIntervalMs: 2 ** 31 }, 'r')).toThrow(InvalidOption);
    const guard = new IdempotencyGuard(new MemoryStore());
    expect(() => startHousekeeping({ receipts: [{ guard, olderThanMs: DAY_MS }], everyMs: 30 * DAY_MS })).toThrow(
      InvalidOption,
    );
  });

  it('keep a long lease but never derive a heartbeat timer above the limit from it', () => {
    const resolved = resolveGuardOptions({ leaseMs: 2 ** 33 });
    expect(resolved.leaseMs).toBe(2 ** 33);
    expect(resolved.heartbeatMs).toBe(MAX_TIMER_MS);
    expect(() => resolveGuardOptions({ leaseMs: 2 ** 33, heartbeatMs: 2 ** 32 })).toThrow(InvalidOption);
    expect(() => resolveGuardOptions({ waitForInFlightMs: 2 ** 31 })).toThrow(InvalidOption);
  });

  it('keep retentions and ages above the limit (they are compared with timestamps, never slept on)', () => {
    const guard = new IdempotencyGuard(new MemoryStore());
    const housekeeping = startHousekeeping({ receipts: [{ guard, olderThanMs: 90 * DAY_MS }] });
    return housekeeping.stop();
  });

  it('the command line refuses a timer flag above the limit and keeps age flags', () => {
    expect(millis('--worker-poll-ms', 1)('2147483647')).toBe(MAX_TIMER_MS);
    expect(() => millis('--worker-poll-ms', 1)('3000000000')).toThrow(/from 1 to 2147483647/);
    expect(millis('--journal-retention-ms', 1, Number.MAX_SAFE_INTEGER)('7776000000')).toBe(90 * DAY_MS);
  });
});

describe('an options argument that is not an object', () => {
  it.each([null, 5, 'x', []])('%j is refused with InvalidOption, never a TypeError', (value) => {
    const given = value as never;
    expect(() => optionsObject('options', given)).toThrow(InvalidOption);
    expect(() => new IdempotencyGuard(new MemoryStore(), given)).toThrow(InvalidOption);
    expect(() => resolveOutboxWorkerOptions(given, 'w')).toThrow(InvalidOption);
    expect(() => resolveRelayOptions(given, 'r')).toThrow(InvalidOption);
    expect(() => startHousekeeping(given)).toThrow(InvalidOption);
  });

  it('undefined means the defaults where options are optional', () => {
    expect(optionsObject('options', undefined)).toEqual({});
    expect(resolveGuardOptions(undefined).leaseMs).toBe(30_000);
  });
});
