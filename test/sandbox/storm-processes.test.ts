import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newSigningSecret } from '../../packages/sandbox/src/webhook-signer.js';
import { runPayonce } from '../cli/support/run-payonce.js';
import { createSqliteNamespace } from '../contract/backends/sqlite.js';
import { freePort, type SupervisedService, superviseService } from '../storm/supervised-service.js';
import { type SandboxProcess, startSandboxProcess } from './sandbox-process.js';

/** The demo's compressed `payonce serve` timings (docs/sandbox.md "payonce storm against separate processes"). */
const SERVE_ARGS = [
  '--worker-poll-ms',
  '20',
  '--lease-ms',
  '1500',
  '--reconcile-every-ms',
  '300',
  '--reconcile-after-ms',
  '800',
  '--provider-timeout-ms',
  '1000',
  '--fulfil-delay-ms',
  '150',
  '--log-level',
  'warn',
];

// `payonce storm` against `payonce serve` and `payonce sandbox`, three separate processes wired only by URLs and
// the shared webhook secret, exactly as docs/sandbox.md tells a user to run them.
describe('payonce storm against payonce serve + payonce sandbox as separate processes', () => {
  const secret = newSigningSecret('stripe');
  const adminToken = randomBytes(32).toString('base64url');
  let sandbox: SandboxProcess;
  let service: SupervisedService;
  let ns: { path: string; drop(): Promise<void> };

  beforeAll(async () => {
    ns = await createSqliteNamespace();
    const port = await freePort();
    sandbox = await startSandboxProcess([
      '--webhook-url',
      `http://127.0.0.1:${port}/webhooks/stripe`,
      '--webhook-secret',
      secret,
      '--time-scale',
      '0.001',
      '--retry-schedule',
      'standard-webhooks',
      '--delivery-timeout-ms',
      '5000',
      '--serve-secrets', // the storm signs its own events with the sandbox's secret
    ]);
    service = await superviseService(
      ['--database-url', ns.path, '--provider-url', sandbox.url, ...SERVE_ARGS],
      { STRIPE_WEBHOOK_SECRET: secret, PAYONCE_ADMIN_TOKEN: adminToken },
      true,
      port,
    );
  }, 60_000);
  afterAll(async () => {
    await service?.stop();
    await sandbox?.stop();
    await ns?.drop();
  });

  it('passes 18/18 (the replica scenarios 19-22 skip against one service)', async () => {
    const run = await runPayonce(
      ['storm', '--target', service.url, '--provider', sandbox.url, '--timeout-ms', '30000'],
      { PAYONCE_ADMIN_TOKEN: adminToken },
      150_000,
    );
    const why = `${run.stdout}\n${run.stderr}\nservice:\n${service.output()}`;
    expect(run.code, why).toBe(0);
    expect(run.stdout, why).toMatch(/^PASS: 18\/22 scenarios \(4 skipped: 19, 20, 21, 22\)/m);
  }, 180_000);
});
