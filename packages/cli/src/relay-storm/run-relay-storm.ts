import type { SqlTarget } from 'payonce/internal/outbox/sql-transaction.js';
import { brokerOf } from 'payonce/internal/relay/broker-url.js';
import { parseDatabaseUrl } from 'payonce/internal/stores/database-url.js';
import { openSqlStore } from 'payonce/internal/stores/open-sql-store.js';
import { RELAY_SCENARIOS, runRelayScenario } from './relay-scenarios.js';
import { createStormEffectsTable } from './storm-effects.js';
import type { RelayScenarioId, RelayScenarioResult } from './storm-types.js';

/** Options of `runRelayStorm`. Durations in ms. */
export interface RelayStormOptions {
  /** `--database-url`: SQLite file, `postgres://…`, `mysql://…` (migrated here). */
  readonly databaseUrl: string;
  /** `nats://…` or `amqp://…`. */
  readonly brokerUrl: string;
  /** Messages per scenario. @default 2_000 */
  readonly messages?: number;
  /** Relay kills of scenario (a) (scenario (e) kills a quarter as many consumers, at least 2). @default 20 */
  readonly kills?: number;
  /** Aggregates the messages are spread over. @default 50 */
  readonly aggregates?: number;
  /** Relay lease. @default 1_000 */
  readonly leaseMs?: number;
  /** Scenarios to run. @default all of a–e */
  readonly only?: readonly RelayScenarioId[];
  /** Progress lines. */
  readonly log?: (line: string) => void;
}

/** The whole run: every scenario's result and whether all passed. */
export interface RelayStormReport {
  readonly broker: 'nats' | 'amqp';
  readonly database: string;
  readonly passed: boolean;
  readonly results: readonly RelayScenarioResult[];
}

/**
 * The relay storm of issue #14: for each scenario (a)–(e), enqueues `messages` outbox jobs over `aggregates`
 * aggregates, relays them with `payonce` relay processes to the broker while injecting the scenario's fault, has
 * an idempotent consumer apply each through the inbox into `payonce_relay_storm_effects`, and judges from that
 * table: every message applied exactly once, none lost, each aggregate in order, every job marked sent.
 * @throws {CliUsageError} a bad database URL; {InvalidOption} a bad broker URL.
 */
export async function runRelayStorm(options: RelayStormOptions): Promise<RelayStormReport> {
  const database = parseDatabaseUrl(options.databaseUrl);
  const broker = brokerOf(options.brokerUrl);
  const store = await openSqlStore(database);
  const log = options.log ?? (() => {});
  try {
    await store.migrate();
    await createStormEffectsTable(store);
    const results: RelayScenarioResult[] = [];
    const only = new Set(options.only ?? RELAY_SCENARIOS.map((s) => s.id));
    for (const scenario of RELAY_SCENARIOS.filter((s) => only.has(s.id))) {
      log(`(${scenario.id}) ${scenario.title} …`);
      const result = await runRelayScenario(
        {
          databaseUrl: options.databaseUrl,
          target: store as unknown as SqlTarget<unknown>,
          broker,
          brokerUrl: options.brokerUrl,
          messages: options.messages ?? 2_000,
          kills: options.kills ?? 20,
          aggregates: options.aggregates ?? 50,
          leaseMs: options.leaseMs ?? 1_000,
          log,
        },
        scenario,
      );
      log(
        `(${scenario.id}) ${result.passed ? 'pass' : 'FAIL'} in ${result.seconds} s${result.notes.length ? `: ${result.notes.join('; ')}` : ''}`,
      );
      results.push(result);
    }
    return Object.freeze({
      broker,
      database: database.dialect,
      passed: results.length > 0 && results.every((r) => r.passed),
      results: Object.freeze(results),
    });
  } finally {
    await store.close();
  }
}

const COLUMNS = [
  ['scenario', (r: RelayScenarioResult) => `(${r.id})`],
  ['messages', (r: RelayScenarioResult) => r.messages],
  ['applied once', (r: RelayScenarioResult) => r.applied - r.doubled],
  ['lost', (r: RelayScenarioResult) => r.lost],
  ['doubled', (r: RelayScenarioResult) => r.doubled],
  ['out of order', (r: RelayScenarioResult) => r.outOfOrder],
  ['faults', (r: RelayScenarioResult) => r.faults],
  ['broker acks', (r: RelayScenarioResult) => r.acked],
  ['dropped by broker', (r: RelayScenarioResult) => r.droppedByBroker],
  ['absorbed by inbox', (r: RelayScenarioResult) => r.absorbedByInbox],
  ['stored', (r: RelayScenarioResult) => r.stored ?? '-'],
  ['s', (r: RelayScenarioResult) => r.seconds],
  ['result', (r: RelayScenarioResult) => (r.passed ? 'pass' : 'FAIL')],
] as const;

/**
 * The per-scenario table `payonce relay-storm` prints: one row per scenario with messages, effects applied once,
 * lost, doubled, out of order, faults injected, broker acks, duplicates dropped by the broker, duplicates
 * absorbed by the inbox, messages stored in the stream (NATS), seconds and pass/FAIL; then each scenario's notes.
 */
export function relayStormTable(report: RelayStormReport): string[] {
  const header = COLUMNS.map(([name]) => name);
  const rows = report.results.map((result) => COLUMNS.map(([, cell]) => String(cell(result))));
  const widths = header.map((name, i) => Math.max(name.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: readonly string[]) => cells.map((cell, i) => cell.padStart(widths[i] ?? 0)).join('  ');
  return [
    line(header),
    ...rows.map(line),
    ...report.results.map((r) => `(${r.id}) ${r.title}: ${r.notes.join('; ')}`),
    `${report.passed ? 'PASS' : 'FAIL'}: ${report.results.filter((r) => r.passed).length}/${report.results.length} scenarios on ${report.database} + ${report.broker}`,
  ];
}
