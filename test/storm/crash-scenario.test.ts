import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../packages/sandbox/src/create-sandbox.js';
import { runStorm } from '../../packages/storm/src/run-storm.js';
import { createSqliteNamespace } from '../contract/backends/sqlite.js';
import { type SupervisedService, superviseService } from './supervised-service.js';

const DIST = fileURLToPath(new URL('../../packages/cli/dist/run-cli.js', import.meta.url));

/** Compressed `payonce serve` timings: a 300 ms warehouse call to kill into, a 1 s lease. */
const SERVE_ARGS = [
  '--worker-poll-ms',
  '20',
  '--lease-ms',
  '1000',
  '--reconcile-every-ms',
  '100',
  '--reconcile-after-ms',
  '1000',
  '--provider-timeout-ms',
  '600',
  '--fulfil-delay-ms',
  '300',
  '--log-level',
  'silent',
];

// Scenario 12 needs a real process to SIGKILL: `payonce serve` as a child under a respawning supervisor.
describe('storm scenario 12 against a real payonce serve process', () => {
  let sandbox: Sandbox;
  let ns: { path: string; drop(): Promise<void> };
  beforeAll(async () => {
    expect(existsSync(DIST), 'run `npm run build` first: the test spawns bin/payonce.js').toBe(true);
    sandbox = await createSandbox({ timeScale: 0.001, serveSecrets: true });
    ns = await createSqliteNamespace();
  });
  afterAll(async () => {
    await sandbox?.close();
    await ns?.drop();
  });

  async function serve(restart: boolean): Promise<SupervisedService> {
    const service = await superviseService(
      ['--database-url', ns.path, '--provider-url', sandbox.url, ...SERVE_ARGS],
      {
        STRIPE_WEBHOOK_SECRET: sandbox.controls.signing().secret,
      },
      restart,
    );
    sandbox.controls.setWebhookUrl(`${service.url}/webhooks/stripe`);
    return service;
  }

  it('kills the service mid-fulfilment, a restarted process finishes the job: exactly one fulfilment', async () => {
    const service = await serve(true);
    try {
      const firstPid = service.pid();
      const report = await runStorm({ target: service.url, provider: sandbox.url, only: [12], timeoutMs: 15_000 });
      const [result] = report.results;
      expect(result?.reasons, service.output()).toEqual([]);
      expect(result?.verdict).toBe('pass');
      expect(service.restarts).toEqual([{ from: firstPid, to: service.pid() }]);
      expect(result?.notes.join('\n')).toMatch(
        new RegExp(`killed pid ${firstPid} with the fulfilment job running .*restarted as pid ${service.pid()}`),
      );
      expect(result?.orders[0]).toMatchObject({ charges: 1, paidTransitions: 1, fulfilments: 1 });
      expect(result?.orders[0]?.jobs).toEqual(['done']);
    } finally {
      await service.stop();
    }
  }, 60_000);

  it('fails scenario 12 clearly when nothing restarts the killed service', async () => {
    const service = await serve(false);
    try {
      const report = await runStorm({ target: service.url, provider: sandbox.url, only: [12], timeoutMs: 3_000 });
      const [result] = report.results;
      expect(result?.verdict).toBe('fail');
      expect(result?.reasons.join('\n')).toMatch(/no restarted service answered .*supervisor/);
      expect(report.passed).toBe(false);
    } finally {
      await service.stop();
    }
  }, 60_000);
});
