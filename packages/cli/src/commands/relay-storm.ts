import { writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { InvalidOption } from 'payonce/internal/core/errors.js';
import type { CliIo } from '../cli-io.js';
import { CliUsageError } from '../cli-usage-error.js';
import { type RelayStormReport, relayStormTable, runRelayStorm } from '../relay-storm/run-relay-storm.js';
import type { RelayScenarioId } from '../relay-storm/storm-types.js';

/** `payonce relay-storm` ran and at least one scenario failed (exit status 1). */
export class RelayStormFailed extends Error {
  constructor(readonly failed: readonly string[]) {
    super(`relay storm scenario(s) failed: ${failed.join(', ')}`);
    this.name = 'RelayStormFailed';
  }
}

/** Options of `payonce relay-storm` as commander parses them. */
export interface RelayStormCommandOptions {
  databaseUrl: string;
  broker: string;
  messages: string;
  kills: string;
  aggregates: string;
  leaseMs: string;
  only?: string;
  report?: string;
}

function whole(value: string, name: string, min: number): number {
  if (!/^\d+$/.test(value) || Number(value) < min)
    throw new CliUsageError(`${name} must be a whole number ≥ ${min}, got "${value}"`);
  return Number(value);
}

function scenarios(value: string | undefined): RelayScenarioId[] | undefined {
  if (value === undefined) return undefined;
  const ids = value.split(',').map((part) => part.trim());
  if (ids.length === 0 || ids.some((id) => !/^[a-e]$/.test(id))) {
    throw new CliUsageError(`--only takes scenario letters a–e separated by commas (e.g. a,c), got "${value}"`);
  }
  return ids as RelayScenarioId[];
}

/**
 * `payonce relay-storm`: runs the relay storm (scenarios (a)–(e) of issue #14) on `--database-url` and `--broker`,
 * printing a progress line per scenario, then the per-scenario table and PASS/FAIL; writes the JSON report to
 * `--report` when given. Returns the report.
 * @throws {CliUsageError} a bad number, scenario list, database or broker URL (exit status 2).
 * @throws {RelayStormFailed} a scenario failed (exit status 1), after printing.
 */
export async function runRelayStormCommand(options: RelayStormCommandOptions, io: CliIo): Promise<RelayStormReport> {
  let report: RelayStormReport;
  try {
    report = await runRelayStorm({
      databaseUrl: options.databaseUrl,
      brokerUrl: options.broker,
      messages: whole(options.messages, '--messages', 1),
      kills: whole(options.kills, '--kills', 1),
      aggregates: whole(options.aggregates, '--aggregates', 1),
      leaseMs: whole(options.leaseMs, '--lease-ms', 100),
      only: scenarios(options.only),
      log: (line) => io.out(line),
    });
  } catch (error) {
    if (error instanceof InvalidOption) throw new CliUsageError(error.message);
    throw error;
  }
  io.out('');
  for (const line of relayStormTable(report)) io.out(line);
  if (options.report !== undefined) {
    await writeFile(options.report, `${JSON.stringify(report, null, 2)}\n`);
    io.out(`report written to ${options.report}`);
  }
  const failed = report.results.filter((r) => !r.passed).map((r) => r.id);
  if (failed.length > 0) throw new RelayStormFailed(failed);
  return report;
}

/** Registers `relay-storm` on the `payonce` program. */
export function registerRelayStorm(program: Command, io: CliIo): void {
  program
    .command('relay-storm')
    .description(
      'prove the outbox relay end to end: relay/consumer kills, two relays, broker restart, republish past the dedup window',
    )
    .requiredOption(
      '--database-url <url>',
      'SQLite file, postgres://… or mysql://… (migrated; outbox, inbox and effects live here)',
    )
    .requiredOption('--broker <url>', 'nats://127.0.0.1:4222 or amqp://guest:guest@127.0.0.1:5672')
    .option('--messages <n>', 'messages per scenario', '2000')
    .option('--kills <n>', 'relay processes SIGKILLed in scenario (a) (consumers in (e): a quarter, at least 2)', '20')
    .option('--aggregates <n>', 'aggregates the messages are spread over (order is checked per aggregate)', '50')
    .option('--lease-ms <ms>', 'relay lease (a killed relay is replaced after it)', '1000')
    .option('--only <letters>', 'run only these scenarios, e.g. a,c')
    .option('--report <file>', 'write the JSON report')
    .action(async (options: RelayStormCommandOptions) => {
      await runRelayStormCommand(options, io);
    });
}
