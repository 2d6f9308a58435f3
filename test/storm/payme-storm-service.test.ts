import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ClosablePaymeTarget,
  formatPaymeStormTable,
  runPaymeStorm,
  servicePaymeTarget,
} from '../../packages/storm/src/payme/index.js';
import { createSqliteNamespace } from '../contract/backends/sqlite.js';
import { ACCOUNT, KEY } from '../providers/payme/payme-fixtures.js';
import { type Harness, startHarness } from '../service/service-harness.js';
import { type SupervisedService, superviseService } from './supervised-service.js';

const ADMIN_TOKEN = randomBytes(32).toString('hex');

/**
 * The Payme storm against the reference service (`createService` with a Payme key, SQLite) through
 * `servicePaymeTarget`: everything but the crash, which needs a `payonce serve` child under a supervisor.
 */
describe('Payme storm against the reference service on SQLite', () => {
  let h: Harness;
  let target: ClosablePaymeTarget;
  beforeAll(async () => {
    const field = Object.keys(ACCOUNT)[0] as string;
    h = await startHarness({ paymeKeys: KEY, paymeAccountField: field, adminToken: ADMIN_TOKEN });
    target = servicePaymeTarget({ service: h.service.url, key: KEY, accountField: field, adminToken: ADMIN_TOKEN });
  });
  afterAll(async () => {
    await target?.close();
    await h?.close();
  });

  it('passes every scenario but the crash: one perform, one paid transition, one fulfilment per paid order', async () => {
    const report = await runPaymeStorm({ target, only: [1, 2, 3, 4, 5, 6, 7, 9, 10, 11], timeoutMs: 20_000 });
    const table = formatPaymeStormTable(report);
    expect(report.passed, table).toBe(true);
    expect(
      report.results.every((r) => r.verdict === 'pass'),
      table,
    ).toBe(true);
    const rerun = report.results.find((r) => r.id === 11);
    expect(rerun?.notes.join(' '), table).toMatch(/rerun of the done fulfilment job: 409 JOB_NOT_DEAD/);
  });
});

// P8 needs a real process to SIGKILL: `payonce serve` (built) as a child under the respawning supervisor.
describe('Payme storm P8 against a real payonce serve process', () => {
  let service: SupervisedService;
  let ns: { path: string; drop(): Promise<void> };
  let target: ClosablePaymeTarget;
  beforeAll(async () => {
    ns = await createSqliteNamespace();
    const field = Object.keys(ACCOUNT)[0] as string;
    const args = ['--database-url', ns.path, '--provider-url', 'http://127.0.0.1:9', '--payme-account-field', field];
    service = await superviseService([...args, '--worker-poll-ms', '20', '--log-level', 'silent'], {
      PAYONCE_PAYME_KEY: KEY,
    });
    target = servicePaymeTarget({ service: service.url, key: KEY, accountField: field });
  });
  afterAll(async () => {
    await target?.close();
    await service?.stop();
    await ns?.drop();
  });

  it('kills the service as Perform is sent; Payme’s repeat finds one perform_time, one fulfilment', async () => {
    const report = await runPaymeStorm({ target, only: [8], timeoutMs: 20_000 });
    const table = formatPaymeStormTable(report);
    expect(report.results[0]?.verdict, `${table}\n${service.output()}`).toBe('pass');
    expect(service.restarts).toHaveLength(1);
    expect(report.results[0]?.notes[0]).toMatch(/killed pid \d+, restarted as pid \d+/);
    expect(report.results[0]?.counts).toMatchObject({ performs: 1, paidTransitions: 1, fulfilments: 1 });
  });
});
