import type { Command } from 'commander';
import { parseDatabaseUrl } from 'payonce/internal/stores/database-url.js';
import { databaseUrlOption, printJson, utc } from '../admin-output.js';
import { loadAdminReads } from '../admin-reads-peer.js';
import type { CliIo } from '../cli-io.js';

/**
 * `payonce inspect order ID --database-url URL [--json]`: "why is this order in this state?" — the order, its
 * counts and its timeline (attempts, provider calls, deliveries with decisions including rejected ones,
 * transitions, jobs, effects, alerts, operator actions), redacted, oldest first; `--json` prints the admin API's
 * `OrderTimeline`. An unknown order exits 1 with `payonce inspect: order ID not found`.
 * @throws {CliUsageError} a bad `--database-url` (exit 2).
 * @throws {MissingPeer} `@payonce/service` is not installed (exit 1).
 */
export async function runInspectOrder(orderId: string, flags: { databaseUrl: string; json?: boolean }, io: CliIo) {
  parseDatabaseUrl(flags.databaseUrl);
  const { openAdminReads, orderTimeline } = await loadAdminReads('payonce inspect');
  const { reads, close } = await openAdminReads(flags.databaseUrl);
  try {
    const timeline = await orderTimeline(reads, orderId);
    if (!timeline) throw new Error(`order ${orderId} not found`);
    if (flags.json) return printJson(io, timeline);
    const { order, counts } = timeline;
    io.out(`order ${order.id}: ${order.status}, ${order.amountMinor} ${order.currency} (minor units)`);
    io.out(
      `attempts ${timeline.attempts.length}, paid transitions ${counts.paidTransitions}, deliveries ${counts.deliveries} ` +
        `(rejected ${counts.rejectedDeliveries}), fulfilments ${counts.fulfilments}, refunds ${counts.refunds}`,
    );
    for (const entry of timeline.entries) {
      io.out(`${utc(entry.atMs)}  ${entry.kind.padEnd(13)}  ${entry.title}`);
      if (entry.detail) io.out(`${' '.repeat(36)}${entry.detail}`);
    }
  } finally {
    await close();
  }
}

/** Registers `inspect order ID` on the `payonce` program. */
export function registerInspect(program: Command, io: CliIo): void {
  const inspect = program
    .command('inspect')
    .description('explain one object of the database, an order (needs @payonce/service)');
  inspect
    .command('order <id>')
    .description('one order: its attempts, deliveries, transitions, jobs, effects and operator actions, oldest first')
    .addOption(databaseUrlOption())
    .option('--json', 'print the timeline as JSON')
    .action(async (id: string, flags: { databaseUrl: string; json?: boolean }) => {
      await runInspectOrder(id, flags, io);
    });
}
