import { parseArgs } from 'node:util';
import { InvalidOption } from '../core/errors.js';
import { importPeer, MissingPeer } from '../core/import-peer.js';
import { databaseUrlFromEnv, InvalidDatabaseUrl } from '../stores/database-url.js';
import { MIGRATION_GROUPS } from '../stores/sql/migration-groups.js';
import { type MigratePlan, planMigrate } from './migrate-flags.js';
import { printMigrationSql, runMigrate } from './run-migrate.js';

/** Where the `payonce` executable writes: one line per call. Injected so tests capture output. */
export interface PayonceIo {
  out(line: string): void;
  err(line: string): void;
}

const stdio: PayonceIo = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

const USAGE = [
  'usage: payonce migrate [--database-url URL] [--only GROUPS] [--schema NAME]   apply pending payonce migrations',
  '       payonce migrate --print-sql --dialect sqlite|postgres|mysql [--only GROUPS] [--schema NAME]   print the SQL, connect to nothing',
  '       (NAME: the PostgreSQL schema or MySQL database of every payonce table, created if missing; not on SQLite)',
  '       [--table-prefix PREFIX]   every payonce table, index and ledger named PREFIX… instead of payonce_ (e.g. billing_)',
  '       (URL: SQLite file path, sqlite:PATH, postgres://…, postgresql://… or mysql://…;',
  '        default: PAYONCE_DATABASE_URL, else DATABASE_URL)',
  `       (GROUPS: comma-separated, of ${MIGRATION_GROUPS.join(', ')}; default: all of them)`,
  'The other payonce commands come with @payonce/cli (npm install @payonce/cli); some also need a tooling package:',
  '  serve, worker, console, inspect, receipts, jobs   @payonce/service',
  '  storm, replay                                     @payonce/storm',
  '  sandbox, sandbox payme                            @payonce/sandbox',
  '  demo                                              @payonce/sandbox, @payonce/service and @payonce/storm',
  '  purge, relay, relay-storm                         nothing more (a database driver, a broker client)',
].join('\n');

interface CliModule {
  runCli(args: readonly string[]): Promise<number>;
}

async function migrate(args: readonly string[], io: PayonceIo): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    io.out(USAGE);
    return 0;
  }
  let url: string | undefined;
  let plan: MigratePlan;
  try {
    const { values } = parseArgs({
      args: [...args],
      options: {
        'database-url': { type: 'string' },
        only: { type: 'string', multiple: true },
        'print-sql': { type: 'boolean' },
        dialect: { type: 'string' },
        schema: { type: 'string' },
        'table-prefix': { type: 'string' },
      },
      strict: true,
    });
    plan = planMigrate({
      only: values.only,
      printSql: values['print-sql'],
      dialect: values.dialect,
      schema: values.schema,
      tablePrefix: values['table-prefix'],
      databaseUrlFlag: values['database-url'] !== undefined,
    });
    url = values['database-url'] ?? databaseUrlFromEnv(process.env);
  } catch (error) {
    io.err(`payonce migrate: ${(error as Error).message}`);
    return 2;
  }
  if (plan.printSql) {
    printMigrationSql(plan.dialect, io, plan.options);
    return 0;
  }
  if (url === undefined) {
    io.err('payonce migrate: --database-url (or PAYONCE_DATABASE_URL, or DATABASE_URL) is required');
    return 2;
  }
  try {
    await runMigrate(url, io, plan.options);
    return 0;
  } catch (error) {
    if (error instanceof InvalidOption) {
      io.err(`payonce migrate: ${error.message}`);
      return 2;
    }
    if (error instanceof InvalidDatabaseUrl) {
      io.err(`payonce migrate: ${error.reason}`);
      return 2;
    }
    io.err(`payonce migrate: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

/**
 * Runs the `payonce` executable with `args` (without node and script paths) and returns the exit status. When
 * `@payonce/cli` is installed every command goes to it (its `migrate` is this package's `runMigrate`); without it,
 * `migrate` runs here and any other command exits 2 naming the package to install. Never calls `process.exit`.
 */
export async function runPayonce(args: readonly string[], io: PayonceIo = stdio): Promise<number> {
  const [command, ...rest] = args;
  let cli: CliModule;
  try {
    cli = await importPeer<CliModule>('@payonce/cli', command === undefined ? 'payonce' : `payonce ${command}`);
  } catch (error) {
    if (!(error instanceof MissingPeer)) throw error;
    if (command === 'migrate') return migrate(rest, io);
    if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
      io.out(USAGE);
      return 0;
    }
    io.err(error.message);
    return 2;
  }
  return cli.runCli(args);
}
