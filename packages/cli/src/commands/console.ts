import { type Command, Option } from 'commander';
import { importWithPeers } from 'payonce/internal/core/import-peer.js';
import { describeTarget, parseDatabaseUrl } from 'payonce/internal/stores/database-url.js';
import type { CliIo } from '../cli-io.js';
import { CliUsageError } from '../cli-usage-error.js';
import { otelTraceUrlOption, portOf, trustProxyOption, untilSignal } from './serve.js';

interface ConsoleFlags {
  databaseUrl: string;
  schema?: string;
  tablePrefix?: string;
  port: number;
  host: string;
  providerUrl?: string;
  logLevel: string;
  trustProxy?: string;
  otelTraceUrl?: string;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

/**
 * Registers `console` on the `payonce` program: the operator console (docs/console.md) on `--database-url`
 * without a running service — admin API and web console only (no orders, webhooks or worker). The admin token
 * comes from `PAYONCE_ADMIN_TOKEN` (never a flag: argv is visible to every user of the machine). Prints
 * `payonce console listening on http://…/console/` and stays up until SIGTERM/SIGINT. Without `--provider-url`
 * reconciling an attempt is refused; without `STRIPE_WEBHOOK_SECRET` / `STANDARD_WEBHOOKS_SECRET` replays are.
 * Exit 2 without the token or for a bad flag, 1 when the database or port cannot be opened.
 */
export function registerConsole(program: Command, io: CliIo): void {
  program
    .command('console')
    .description(
      'serve the operator console (admin API + web console) on a database, without the service (needs @payonce/service)',
    )
    .addOption(databaseUrlOptionForConsole())
    .option('--schema <name>', 'the PostgreSQL schema (MySQL: database) of the payonce tables; not on SQLite')
    .option('--table-prefix <prefix>', 'what the payonce table names start with instead of payonce_ (e.g. billing_)')
    .addOption(new Option('--port <port>', 'listening port (0 picks one)').env('PORT').default(3100).argParser(portOf))
    .addOption(new Option('--host <host>', 'listening address').env('HOST').default('127.0.0.1'))
    .addOption(trustProxyOption())
    .addOption(otelTraceUrlOption())
    .addOption(
      new Option('--provider-url <url>', 'provider API base URL (enables "reconcile now")').env('PAYONCE_PROVIDER_URL'),
    )
    .addOption(
      new Option('--log-level <level>', 'pino level of the JSON logs on stderr')
        .env('PAYONCE_LOG_LEVEL')
        .choices(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
        .default('info'),
    )
    .action(async (flags: ConsoleFlags) => {
      const target = parseDatabaseUrl(flags.databaseUrl);
      const adminToken = nonEmpty(process.env.PAYONCE_ADMIN_TOKEN);
      if (adminToken === undefined)
        throw new CliUsageError('PAYONCE_ADMIN_TOKEN is required: the token operators log in with');
      const signal = untilSignal();
      const { startConsoleServer } = await importWithPeers(
        'payonce console',
        () => import('@payonce/service/internal/admin/console-server.js'),
      );
      const server = await startConsoleServer({
        databaseUrl: flags.databaseUrl,
        ...(flags.schema === undefined ? {} : { databaseSchema: flags.schema }),
        ...(flags.tablePrefix === undefined ? {} : { databaseTablePrefix: flags.tablePrefix }),
        port: flags.port,
        host: flags.host,
        providerUrl: nonEmpty(flags.providerUrl) ?? null,
        adminToken,
        stripeWebhookSecrets: nonEmpty(process.env.STRIPE_WEBHOOK_SECRET) ?? null,
        standardWebhooksSecrets: nonEmpty(process.env.STANDARD_WEBHOOKS_SECRET) ?? null,
        logLevel: flags.logLevel,
        trustProxy: nonEmpty(flags.trustProxy) ?? null,
        otelTraceUrl: nonEmpty(flags.otelTraceUrl) ?? null,
      });
      io.out(`payonce console listening on ${server.url}/console/`);
      io.out(`database ${describeTarget(target)}`);
      const received = await signal;
      io.out(`payonce console: ${received}, closing`);
      await server.close();
    });
}

function databaseUrlOptionForConsole(): Option {
  return new Option('--database-url <url>', 'SQLite file path (or sqlite:PATH), postgres://… or mysql://…')
    .env('DATABASE_URL')
    .default('./payonce.sqlite');
}
