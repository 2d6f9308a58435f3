import { randomBytes, randomInt } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Sandbox } from '@payonce/sandbox/internal/create-sandbox.js';
import type { StormReport } from '@payonce/storm/internal/storm-report.js';
import { describeTarget, parseDatabaseUrl } from 'payonce/internal/stores/database-url.js';
import type { CliIo } from '../cli-io.js';
import { CliUsageError } from '../cli-usage-error.js';
import { progressLine, stormPlanLine } from '../storm-progress.js';
import { type DemoLocalCredentials, type DemoLocalStorms, runDemoLocalStorms } from './demo-local-storms.js';
import { loadDemoPeers } from './demo-peers.js';
import { DEMO_SERVICE_TIMINGS } from './demo-service-timings.js';
import { findFreePort } from './free-port.js';
import { onInterrupt, waitForStop } from './interrupt.js';
import { type RoundRobinForwarder, startRoundRobinForwarder } from './round-robin-forwarder.js';
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
  /**
   * Stripe storm scenario numbers to run (docs/design.md §9); `[]` runs none and no Payme, Click or Uzum storm
   * either. Those storms, when they run, run whole. @default every scenario
   */
  readonly only?: readonly number[];
  /** Write the storm's JSON report (plus the demo's service restarts) to this file. */
  readonly reportPath?: string;
  /** Port of the service on 127.0.0.1. @default a free port */
  readonly port?: number;
  /**
   * Token of the service's operator console (`PAYONCE_ADMIN_TOKEN`), checked by `checkAdminTokenStrength`.
   * @default 32 random bytes, base64url (never printed)
   */
  readonly adminToken?: string;
  /** Sandbox time compression (retry schedule, settle delay). @default 0.001 (the 5 s retry after 5 ms) */
  readonly timeScale?: number;
  /** Budget of each scenario, ms (storm `timeoutMs`). @default the storm's */
  readonly scenarioTimeoutMs?: number;
  /**
   * How long each start of a service child may take until its `/healthz` answers, ms (the supervisor's
   * `startTimeoutMs`); past it the child is killed and the start failed. @default 30_000
   */
  readonly serviceStartTimeoutMs?: number;
  /** With `serve`: stops waiting when aborted, as Ctrl-C does (for tests). */
  readonly stopSignal?: AbortSignal;
  /**
   * How many `payonce serve` processes (replicas) share the database, 1–8. With more than one, the storm spreads
   * every scenario's requests over them round-robin, the sandbox's webhooks go through a round-robin forwarder,
   * scenario 12 kills one chosen at random and the replica scenarios 19–22 run. PostgreSQL or MySQL only: SQLite
   * allows one writing process. @default 1
   */
  readonly replicas?: number;
}

/** What a demo run did. */
export interface DemoResult {
  /** True when the service stayed up (or came back) and every scenario of both storms that ran passed. */
  readonly passed: boolean;
  /**
   * What failed when `passed` is false: Stripe, Payme, Click and Uzum scenarios (`Click 3. …`), an unreachable
   * `/payme`, `/click/*` or `/uzum/*`, a replica.
   */
  readonly failed: readonly string[];
  /** The storm's report; `null` when no scenario ran (`only: []`). */
  readonly storm: StormReport | null;
  /**
   * The Payme storm's report; `null` when it did not run: `only: []`, a replica down, `/payme` unavailable (a
   * failure), or a `databaseUrl` whose `payonce_payme_keys` holds an earlier run's key (a skip, said on stdout).
   */
  readonly payme: DemoLocalStorms['payme'];
  /** The Click storm's report; `null` when it did not run (`only: []`, a replica down, `/click/*` unavailable). */
  readonly click: DemoLocalStorms['click'];
  /** The Uzum storm's report; `null` when it did not run (`only: []`, a replica down, `/uzum/*` unavailable). */
  readonly uzum: DemoLocalStorms['uzum'];
  /** The Telegram storm's report; `null` when it did not run (`only: []`, a replica down, the webhook unavailable). */
  readonly telegram: DemoLocalStorms['telegram'];
  readonly serviceUrl: string;
  readonly providerUrl: string;
  /** The database as printed (password redacted). */
  readonly database: string;
  /** Restarts of the service children the supervisors made (scenarios 12, 16 and 21 cause one each). */
  readonly restarts: readonly ServiceRestart[];
  /** Base URL of every replica (`serviceUrl` is the first). */
  readonly replicaUrls: readonly string[];
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
 * whole storm (docs/design.md §9) with a progress line per scenario, prints the table and the one-line summary, then
 * the same for the whole Payme storm (docs/storm.md "Payme storm") against the service's `POST /payme` (the children
 * get a fresh random cashbox key, never printed; with replicas, against the first one; skipped with the reason on a
 * `databaseUrl` whose stored key from an earlier run wins), then the Click and the Uzum storms (docs/storm.md
 * "Click storm", "Uzum storm") against its `/click/*` and `/uzum/*`, and the Telegram storm against its
 * `/telegram/webhook` (a Telegram sandbox where the children's Bot API URL points; fresh random credentials, never
 * printed), writes
 * the JSON report if asked, then stops both (or,
 * with `serve`, prints their URLs and waits for Ctrl-C). The child's output is captured and printed (to `io.err`)
 * only when something failed.
 * With `replicas: N` (PostgreSQL or MySQL) it starts N such children on one database, each under its own
 * supervisor, puts a round-robin forwarder between the sandbox's webhooks and them, and runs the storm against all
 * of them (round-robin requests, scenario 12 kills one at random, scenarios 19–22 aim at particular replicas).
 * @throws {CliUsageError} `only` is empty (`--only none`) without `serve`: nothing would run (exit 2).
 * @throws {InvalidDatabaseUrl} a malformed or unsupported `databaseUrl` (exit 2), before anything starts.
 * @throws {InvalidOption} a short or predictable `adminToken`, before anything starts.
 * @throws {CliUsageError} a bad `replicas`, or more than one replica on SQLite (exit 2), before anything starts.
 * @throws {ServiceStartFailed} the service child did not become healthy (its last output is printed first).
 * @throws {StormTargetUnavailable} the service or the sandbox did not answer before the storm (output printed).
 * @throws {MissingPeer} `@payonce/sandbox`, `@payonce/service` or `@payonce/storm` is not installed, before anything starts.
 * @returns the result; `passed` is false when a scenario of any storm failed, `/payme`, `/click/*` or `/uzum/*` did
 *   not answer, or the service could not be brought back (`failed` says which).
 */
export async function runDemo(io: CliIo, options: DemoOptions = {}): Promise<DemoResult> {
  const startedAtMs = Date.now();
  if (options.only !== undefined && options.only.length === 0 && options.serve !== true) {
    throw new CliUsageError('--only none runs no scenario: add --serve to just start the sandbox and the service');
  }
  if (options.databaseUrl !== undefined) parseDatabaseUrl(options.databaseUrl);
  const peers = await loadDemoPeers();
  const { createSandbox, newSigningSecret, checkAdminTokenStrength } = peers;
  if (options.adminToken !== undefined) checkAdminTokenStrength(options.adminToken);
  const replicaCount = replicasOf(options);
  const tempDir = options.databaseUrl === undefined ? await mkdtemp(join(tmpdir(), 'payonce-demo-')) : null;
  const databaseUrl = options.databaseUrl ?? join(tempDir!, 'payonce-demo.sqlite');
  const database = describeTarget(parseDatabaseUrl(databaseUrl));
  const adminToken = options.adminToken ?? randomBytes(32).toString('base64url');
  const credentials: DemoLocalCredentials = {
    paymeKey: randomBytes(24).toString('base64url'),
    click: { serviceId: randomInt(10_000, 99_999), secretKey: randomBytes(18).toString('base64url') },
    uzum: {
      login: 'payonce-demo',
      password: randomBytes(18).toString('base64url'),
      serviceId: randomInt(10_000, 99_999),
    },
    telegram: {
      botToken: `${randomInt(100_000, 999_999)}:${randomBytes(24).toString('base64url')}`,
      secretToken: randomBytes(24).toString('base64url'),
      apiUrl: `http://127.0.0.1:${await findFreePort()}`,
    },
  };
  let sandbox: Sandbox | null = null;
  const supervisors: ServiceSupervisor[] = [];
  let forwarder: RoundRobinForwarder | null = null;
  let keepDatabase = false;
  const cleanup = async () => {
    await Promise.all(supervisors.map((supervisor) => supervisor.stop()));
    await forwarder?.close();
    await sandbox?.close();
    if (tempDir !== null && !keepDatabase) await rm(tempDir, { recursive: true, force: true });
  };
  let release = onInterrupt(cleanup);
  try {
    sandbox = await createSandbox({
      timeScale: options.timeScale ?? 0.001,
      signing: { scheme: 'stripe', secret: newSigningSecret('stripe') },
      deliveryTimeoutMs: 5_000,
      serveSecrets: true, // the storm signs its own events with the sandbox's secret (GET /_sandbox/signing)
    });
    const standardWebhooksSecret = newSigningSecret('standard-webhooks');
    const launches = [];
    for (let i = 0; i < replicaCount; i++) {
      launches.push(
        serviceLaunch({
          port: i === 0 && options.port !== undefined ? options.port : await findFreePort(),
          databaseUrl,
          providerUrl: sandbox.url,
          stripeWebhookSecret: sandbox.controls.signing().secret,
          standardWebhooksSecret,
          adminToken,
          paymeKey: credentials.paymeKey,
          click: credentials.click,
          uzum: credentials.uzum,
          telegram: credentials.telegram,
          timings: DEMO_SERVICE_TIMINGS,
        }),
      );
    }
    const urls = launches.map((launch) => launch.url);
    const replicasText = replicaCount > 1 ? `${replicaCount} replicas of payonce serve` : 'payonce serve';
    io.out(`payonce demo: sandbox provider ${sandbox.url}, ${replicasText} on ${database}`);
    for (const [i, launch] of launches.entries()) {
      const name = replicaCount > 1 ? `replica ${i + 1} ` : '';
      try {
        // One at a time: the first runs the migrations; the others find them applied.
        supervisors.push(
          await ServiceSupervisor.start({
            ...launch,
            ...(options.serviceStartTimeoutMs === undefined ? {} : { startTimeoutMs: options.serviceStartTimeoutMs }),
            onRestart: (r) => io.out(`service ${name}restarted (pid ${r.fromPid} → ${r.toPid}) after it was ${r.exit}`),
            onGiveUp: (failure) => io.err(`service ${name}down for good: ${failure.reason}`),
          }),
        );
      } catch (error) {
        if (error instanceof ServiceStartFailed) showServiceOutput(io, error.output);
        throw error;
      }
      io.out(`service ${name}${launch.url} (pid ${supervisors[i]!.pid})`);
    }
    let webhookBase = urls[0]!;
    if (replicaCount > 1) {
      forwarder = await startRoundRobinForwarder(urls);
      webhookBase = forwarder.url;
      io.out(`webhooks from the sandbox go to ${forwarder.url}/webhooks/stripe, forwarded to the replicas round-robin`);
    } else {
      io.out('webhooks from the sandbox go to /webhooks/stripe');
    }
    sandbox.controls.setWebhookUrl(`${webhookBase}/webhooks/stripe`);
    const outputOfAll = () => supervisors.flatMap((supervisor, i) => prefixed(supervisor.output(), i, replicaCount));

    let storm: StormReport | null = null;
    if (options.only === undefined || options.only.length > 0) {
      storm = await peers
        .runStorm({
          target: urls[0]!,
          replicas: urls,
          provider: sandbox.url,
          adminToken,
          only: options.only,
          timeoutMs: options.scenarioTimeoutMs,
          onProgress: (event) => {
            if (event.kind === 'started' && event.index === 1)
              io.out(
                stormPlanLine(event.total, peers.DEFAULT_STORM_CONCURRENCY, peers.KILLING_SCENARIO_IDS, options.only),
              );
            if (event.kind === 'finished') io.out(progressLine(event));
          },
        })
        .catch((error: unknown) => {
          showServiceOutput(io, outputOfAll());
          throw error;
        });
      io.out('');
      for (const line of peers.formatStormTable(storm).split('\n')) io.out(line);
      io.out('');
      io.out(peers.stormSummary(storm));
    }
    let local: DemoLocalStorms | null = null;
    const serviceDown = supervisors.some((supervisor) => supervisor.failure !== null);
    if (storm !== null && serviceDown)
      io.err('Payme, Click, Uzum and Telegram storms not run: a service replica is down for good');
    if (storm !== null && !serviceDown) {
      local = await runDemoLocalStorms(io, peers, {
        service: urls[0]!,
        adminToken,
        credentials,
        timeoutMs: options.scenarioTimeoutMs,
        givenDatabase: tempDir === null,
      });
    }
    const restarts = supervisors.flatMap((supervisor) => supervisor.restarts).sort((a, b) => a.atMs - b.atMs);
    if (options.reportPath !== undefined) {
      const demo = { database, replicas: urls, restarts, webhooksForwarded: forwarder?.forwarded ?? null };
      const reports = local?.reports ?? { payme: null, click: null, uzum: null, telegram: null };
      const report = { ...storm, ...reports, demo };
      await writeFile(options.reportPath, `${JSON.stringify(report, null, 2)}\n`, 'utf8');
      io.out(`report written to ${options.reportPath}`);
    }
    const failed = [
      ...(storm?.results ?? []).filter((r) => r.verdict === 'fail').map((r) => `${r.id}. ${r.name}`),
      ...(local?.failed ?? []),
      ...(serviceDown ? ['a service replica did not come back after a crash'] : []),
    ];
    const passed = failed.length === 0 && (storm === null || storm.passed);
    if (!passed) showServiceOutput(io, outputOfAll());
    if (options.serve) {
      keepDatabase = true;
      release();
      io.out('');
      for (const line of serveInstructions({
        serviceUrl: urls[0]!,
        servicePid: supervisors[0]!.pid,
        providerUrl: sandbox.url,
        database,
        adminTokenFromEnv: options.adminToken !== undefined,
      })) {
        io.out(line);
      }
      if (replicaCount > 1) io.out(`replicas: ${urls.join(' ')} (webhooks via ${webhookBase})`);
      await waitForStop(options.stopSignal);
      release = onInterrupt(cleanup); // a second Ctrl-C while stopping still stops the children
      io.out(`stopping; the database stays: ${database}`);
    }
    return {
      passed,
      failed,
      storm,
      payme: local?.payme ?? null,
      click: local?.click ?? null,
      uzum: local?.uzum ?? null,
      telegram: local?.telegram ?? null,
      serviceUrl: urls[0]!,
      providerUrl: sandbox.url,
      database,
      restarts,
      replicaUrls: urls,
      durationMs: Date.now() - startedAtMs,
    };
  } finally {
    release();
    await cleanup();
  }
}

/** The service output lines, each prefixed with its replica when there are several. */
function prefixed(lines: readonly string[], index: number, count: number): string[] {
  return count > 1 ? lines.map((line) => `[replica ${index + 1}] ${line}`) : [...lines];
}

/**
 * The replica count of `options`, checked before anything starts.
 * @throws {CliUsageError} not an integer 1–8, or more than one on SQLite (one writing process per file).
 */
function replicasOf(options: DemoOptions): number {
  const count = options.replicas ?? 1;
  if (!Number.isSafeInteger(count) || count < 1 || count > 8) {
    throw new CliUsageError(`--replicas: "${String(count)}" is not a whole number from 1 to 8`);
  }
  const kind = options.databaseUrl === undefined ? 'sqlite' : parseDatabaseUrl(options.databaseUrl).dialect;
  if (count > 1 && kind === 'sqlite') {
    throw new CliUsageError(
      `--replicas ${count}: several replicas need a shared PostgreSQL or MySQL database (--database-url postgres://… ` +
        'or mysql://…); SQLite allows one writing process per file, so replicas would stall each other',
    );
  }
  return count;
}
