import type { Command } from 'commander';
import { importWithPeers } from 'payonce/internal/core/import-peer.js';
import type { CliIo } from '../cli-io.js';
import { CliUsageError } from '../cli-usage-error.js';
import { databaseUrlOf, databaseUrlOption } from '../database-url-option.js';
import { DemoFailed } from '../demo/demo-failed.js';
import { parseOnlyScenarios } from '../demo/only-scenarios.js';

interface DemoFlags {
  databaseUrl?: string;
  serve?: boolean;
  only?: number[];
  report?: string;
  port?: number;
  replicas?: number;
}

function replicaCount(value: string): number {
  const n = /^\d{1,2}$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
  if (!Number.isInteger(n) || n < 1 || n > 8)
    throw new CliUsageError(`--replicas: "${value}" is not a whole number from 1 to 8`);
  return n;
}

function port(value: string): number {
  const n = /^\d{1,5}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(n) || n < 1 || n > 65_535) throw new CliUsageError(`--port: "${value}" is not a port 1…65535`);
  return n;
}

/**
 * Registers `demo` (what `npm start` runs) on the `payonce` program: the sandbox provider plus `payonce serve` as a
 * supervised child, the whole storm against them, then the Payme, Click, Uzum and Telegram storms against its provider
 * endpoints, each with its table and summary; exits 1 when a scenario of any storm fails, a provider endpoint is
 * unavailable or the service does not start, 2 for a bad flag. `PAYONCE_DATABASE_URL`, else `DATABASE_URL`, is
 * read when `--database-url` is not given (empty means unset: a fresh SQLite file);
 * `PAYONCE_ADMIN_TOKEN` chooses the admin token. @see runDemo.
 */
export function registerDemo(program: Command, io: CliIo): void {
  program
    .command('demo')
    .description(
      'start the sandbox provider and payonce serve (a fresh SQLite file by default), run every storm scenario against them, then the Payme, Click, Uzum and Telegram storms against its provider endpoints, print the verdicts (needs @payonce/sandbox, @payonce/service, @payonce/storm)',
    )
    .addOption(
      databaseUrlOption(
        'database of the service: SQLite file path, postgres://… or mysql://… (default: a fresh temporary SQLite file)',
      ),
    )
    .option('--serve', 'keep the service and the sandbox running after the storm and print their URLs (Ctrl-C stops)')
    .option(
      '--only <list>',
      'run only these Stripe storm scenarios, e.g. 1,8,12; the Payme storm still runs whole ("none" with --serve: no storm, just start)',
      (v) => parseOnlyScenarios(v),
    )
    .option('--report <file>', 'write the JSON report of both storms to this file (the Payme one under "payme")')
    .option('--port <n>', 'port of the service on 127.0.0.1 (default: a free one)', port)
    .option(
      '--replicas <n>',
      'run N payonce serve processes on one PostgreSQL or MySQL database (1–8; SQLite: 1); the storm and the webhooks spread over them',
      replicaCount,
    )
    .action(async (flags: DemoFlags) => {
      const adminToken = process.env.PAYONCE_ADMIN_TOKEN;
      // Imported here so that the other commands do not load the sandbox (fastify) and the storm.
      const { runDemo } = await importWithPeers('payonce demo', () => import('../demo/run-demo.js'));
      const result = await runDemo(io, {
        // An empty flag means unset (a fresh SQLite file), like an empty variable.
        databaseUrl:
          flags.databaseUrl?.trim() === '' ? undefined : databaseUrlOf(flags.databaseUrl, process.env, '') || undefined,
        serve: flags.serve === true,
        only: flags.only,
        reportPath: flags.report,
        port: flags.port,
        replicas: flags.replicas,
        adminToken: adminToken !== undefined && adminToken !== '' ? adminToken : undefined,
      });
      if (!result.passed) throw new DemoFailed(result.failed.length > 0 ? result.failed : ['the storm']);
    });
}
