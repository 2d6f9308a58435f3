import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSandbox, type Sandbox } from '../../sandbox/create-sandbox.js';
import { newSigningSecret } from '../../sandbox/webhook-signer.js';
import { describeTarget, parseDatabaseUrl } from '../../stores/database-url.js';
import { DEFAULT_STORM_CONCURRENCY, runStorm } from '../../storm/run-storm.js';
import type { StormReport } from '../../storm/storm-report.js';
import { formatStormTable, stormSummary } from '../../storm/storm-table.js';
import type { CliIo } from '../cli-io.js';
import { CliUsageError } from '../cli-usage-error.js';
import { progressLine, stormPlanLine } from '../storm-progress.js';
import { DEMO_SERVICE_TIMINGS } from './demo-service-timings.js';
import { findFreePort } from './free-port.js';
import { onInterrupt, waitForStop } from './interrupt.js';
import { serveInstructions } from './serve-instructions.js';
import { serviceLaunch } from './service-launch.js';
import { ServiceStartFailed } from './service-start-failed.js';
import { type ServiceRestart, ServiceSupervisor } from './service-supervisor.js';

/** Options of {@link runDemo}. */
export interface DemoOptions {
  /**
   * The service's database: SQLite path / `sqlite:PATH`, `postgres://…` or `mysql://…` (as `--database-url`).
   * @default a fresh SQLite file in a new temporary directory, removed afterwards unless `serve`
   */
  readonly databaseUrl?: string;
  /** Keep the service and the sandbox running after the storm (or instead of it with `only: []`) until Ctrl-C. */
  readonly serve?: boolean;
  /** Scenario numbers to run (docs/design.md §9); `[]` runs none. @default every scenario */
  readonly only?: readonly number[];
  /** Write the storm's JSON report (plus the demo's service restarts) to this file. */
  readonly reportPath?: string;
  /** Port of the service on 127.0.0.1. @default a free port */
  readonly port?: number;
  /** Token of the service's `/admin/*` routes. @default random (never printed) */
  readonly adminToken?: string;
  /** Sandbox time compression (retry schedule, settle delay). @default 0.001 (the 5 s retry after 5 ms) */
  readonly timeScale?: number;
  /** Budget of each scenario, ms (storm `timeoutMs`). @default the storm's */
  readonly scenarioTimeoutMs?: number;
  /** With `serve`: stops waiting when aborted, as Ctrl-C does (for tests). */
  readonly stopSignal?: AbortSignal;
}

/** What a demo run did. */
export interface DemoResult {
  /** True when the service stayed up (or came back) and every scenario that ran passed. */
  readonly passed: boolean;
  /** The storm's report; `null` when no scenario ran (`only: []`). */
  readonly storm: StormReport | null;
  readonly serviceUrl: string;
  readonly providerUrl: string;
  /** The database as printed (password redacted). */
  readonly database: string;
  /** Restarts of the service child the supervisor made (scenario 12 causes one). */
  readonly restarts: readonly ServiceRestart[];
  readonly durationMs: number;
}

const OUTPUT_LINES_ON_FAILURE = 60;

function showServiceOutput(io: CliIo, lines: readonly string[]): void {
  const tail = lines.slice(-OUTPUT_LINES_ON_FAILURE);
  io.err(`service output (last ${tail.length} lines):`);
  for (const line of tail) io.err(`  ${line}`);
}

/**
 * `payonce demo` (what `npm start` runs): starts the sandbox provider in-process (Stripe signing with a fresh random
 * secret, compressed `timeScale`), starts `payonce serve` as a child process on a free port under a
 * {@link ServiceSupervisor} (restarted after any exit the demo did not ask for — storm scenario 12 SIGKILLs it by
 * the pid of `/healthz` — printing `service restarted (pid A → B)`), points the sandbox's webhooks at it, runs the
 * whole storm (docs/design.md §9) with a progress line per scenario, prints the table and the one-line summary, writes the
 * JSON report if asked, then stops both (or, with `serve`, prints their URLs and waits for Ctrl-C). The child's
 * output is captured and printed (to `io.err`) only when something failed.
 * @throws {CliUsageError} `only` is empty (`--only none`) without `serve`: nothing would run (exit 2).
 * @throws {InvalidDatabaseUrl} a malformed or unsupported `databaseUrl` (exit 2), before anything starts.
 * @throws {ServiceStartFailed} the service child did not become healthy (its last output is printed first).
 * @throws {StormTargetUnavailable} the service or the sandbox did not answer before the storm (output printed).
 * @returns the result; `passed` is false when a scenario failed or the service could not be brought back.
 */
export async function runDemo(io: CliIo, options: DemoOptions = {}): Promise<DemoResult> {
  const startedAtMs = Date.now();
  if (options.only !== undefined && options.only.length === 0 && options.serve !== true) {
    throw new CliUsageError('--only none runs no scenario: add --serve to just start the sandbox and the service');
  }
  if (options.databaseUrl !== undefined) parseDatabaseUrl(options.databaseUrl);
  const tempDir = options.databaseUrl === undefined ? await mkdtemp(join(tmpdir(), 'payonce-demo-')) : null;
  const databaseUrl = options.databaseUrl ?? join(tempDir!, 'payonce-demo.sqlite');
  const database = describeTarget(parseDatabaseUrl(databaseUrl));
  const adminToken = options.adminToken ?? randomBytes(24).toString('base64url');
  let sandbox: Sandbox | null = null;
  let supervisor: ServiceSupervisor | null = null;
  let keepDatabase = false;
  const cleanup = async () => {
    await supervisor?.stop();
    await sandbox?.close();
    if (tempDir !== null && !keepDatabase) await rm(tempDir, { recursive: true, force: true });
  };
  let release = onInterrupt(cleanup);
  try {
    sandbox = await createSandbox({
      timeScale: options.timeScale ?? 0.001,
      signing: { scheme: 'stripe', secret: newSigningSecret('stripe') },
      deliveryTimeoutMs: 5_000,
    });
    const launch = serviceLaunch({
      port: options.port ?? (await findFreePort()),
      databaseUrl,
      providerUrl: sandbox.url,
      stripeWebhookSecret: sandbox.controls.signing().secret,
      standardWebhooksSecret: newSigningSecret('standard-webhooks'),
      adminToken,
      timings: DEMO_SERVICE_TIMINGS,
    });
    io.out(`payonce demo: sandbox provider ${sandbox.url}, payonce serve on ${database}`);
    try {
      supervisor = await ServiceSupervisor.start({
        ...launch,
        onRestart: (r) => io.out(`service restarted (pid ${r.fromPid} → ${r.toPid}) after it was ${r.exit}`),
        onGiveUp: (failure) => io.err(`service down for good: ${failure.reason}`),
      });
    } catch (error) {
      if (error instanceof ServiceStartFailed) showServiceOutput(io, error.output);
      throw error;
    }
    io.out(`service ${launch.url} (pid ${supervisor.pid}); webhooks from the sandbox go to /webhooks/stripe`);
    sandbox.controls.setWebhookUrl(`${launch.url}/webhooks/stripe`);

    let storm: StormReport | null = null;
    if (options.only === undefined || options.only.length > 0) {
      const running = supervisor;
      storm = await runStorm({
        target: launch.url,
        provider: sandbox.url,
        adminToken,
        only: options.only,
        timeoutMs: options.scenarioTimeoutMs,
        onProgress: (event) => {
          if (event.kind === 'started' && event.index === 1)
            io.out(stormPlanLine(event.total, DEFAULT_STORM_CONCURRENCY));
          if (event.kind === 'finished') io.out(progressLine(event));
        },
      }).catch((error: unknown) => {
        showServiceOutput(io, running.output());
        throw error;
      });
      io.out('');
      for (const line of formatStormTable(storm).split('\n')) io.out(line);
      io.out('');
      io.out(stormSummary(storm));
    }
    const restarts = supervisor.restarts;
    if (options.reportPath !== undefined) {
      await writeFile(
        options.reportPath,
        `${JSON.stringify({ ...storm, demo: { database, restarts } }, null, 2)}\n`,
        'utf8',
      );
      io.out(`report written to ${options.reportPath}`);
    }
    const failure = supervisor.failure;
    const passed = failure === null && (storm === null || storm.passed);
    if (!passed) showServiceOutput(io, supervisor.output());
    if (options.serve) {
      keepDatabase = true;
      release();
      io.out('');
      for (const line of serveInstructions({
        serviceUrl: launch.url,
        servicePid: supervisor.pid,
        providerUrl: sandbox.url,
        database,
        adminTokenFromEnv: options.adminToken !== undefined,
      })) {
        io.out(line);
      }
      await waitForStop(options.stopSignal);
      release = onInterrupt(cleanup); // a second Ctrl-C while stopping still stops the child
      io.out(`stopping; the database stays: ${database}`);
    }
    return {
      passed,
      storm,
      serviceUrl: launch.url,
      providerUrl: sandbox.url,
      database,
      restarts,
      durationMs: Date.now() - startedAtMs,
    };
  } finally {
    release();
    await cleanup();
  }
}
