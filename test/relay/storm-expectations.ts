import { expect } from 'vitest';
import type { RelayStormReport } from '../../packages/cli/src/relay-storm/run-relay-storm.js';
import type { RelayScenarioResult } from '../../packages/cli/src/relay-storm/storm-types.js';

/** Small enough for `npm test`; the CLI default is 2 000 messages and 20 kills. */
export const TEST_STORM = { messages: 120, kills: 2, aggregates: 12, leaseMs: 700 } as const;

function byId(report: RelayStormReport, id: string): RelayScenarioResult {
  const result = report.results.find((r) => r.id === id);
  if (!result) throw new Error(`scenario ${id} missing`);
  return result;
}

/**
 * What a user relies on after a relay storm: every scenario passed (each effect applied exactly once, none lost,
 * aggregates in order, every job marked sent), the faults were really injected, and the duplicates they caused
 * were absorbed where the broker's guarantee says: JetStream drops republishes inside its window, past it
 * (and on RabbitMQ always) the inbox does; a killed consumer's redelivery always reaches the inbox.
 */
export function expectStormPassed(report: RelayStormReport): void {
  const context = JSON.stringify(report.results, null, 1);
  expect(report.results.map((r) => r.id)).toEqual(['a', 'b', 'c', 'd', 'e']);
  for (const result of report.results) {
    expect(
      {
        id: result.id,
        lost: result.lost,
        doubled: result.doubled,
        outOfOrder: result.outOfOrder,
        unsent: result.unsent,
      },
      context,
    ).toEqual({
      id: result.id,
      lost: 0,
      doubled: 0,
      outOfOrder: 0,
      unsent: 0,
    });
    expect(result.applied, context).toBe(TEST_STORM.messages);
    expect(result.passed, context).toBe(true);
  }
  expect(report.passed).toBe(true);
  const n = TEST_STORM.messages;
  const a = byId(report, 'a');
  expect(a.faults, context).toBeGreaterThanOrEqual(1);
  expect(a.acked, context).toBeGreaterThan(n);
  const d = byId(report, 'd');
  expect(d.acked, context).toBe(2 * n);
  expect(d.absorbedByInbox, context).toBe(n);
  const e = byId(report, 'e');
  expect(e.faults, context).toBeGreaterThanOrEqual(1);
  expect(e.absorbedByInbox, context).toBeGreaterThanOrEqual(e.faults);
  expect(byId(report, 'c').faults, context).toBe(1);
  if (report.broker === 'nats') {
    expect(a.droppedByBroker, context).toBe(a.acked - n);
    expect(a.stored, context).toBe(n);
    expect(d.droppedByBroker, context).toBe(0);
    expect(d.stored, context).toBe(2 * n);
  } else {
    expect(a.droppedByBroker, context).toBe(0);
    expect(a.absorbedByInbox, context).toBeGreaterThanOrEqual(a.acked - n);
  }
}
