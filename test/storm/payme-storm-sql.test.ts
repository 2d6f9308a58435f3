import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPaymeStorm } from '../../packages/storm/src/payme/index.js';
import { formatPaymeStormTable } from '../../packages/storm/src/payme/payme-storm-table.js';
import { PAYME_BACKENDS } from '../providers/payme/payme-stores.js';
import { type PaymeStormApp, startPaymeStormApp } from './payme-storm-app.js';

/** The server databases the in-process Payme shop runs the storm on (on SQLite the storm runs against the reference service: payme-storm-service.test.ts). */
const SERVERS = [
  { backend: 'postgres', name: 'PostgreSQL' },
  { backend: 'mysql', name: 'MariaDB' },
] as const;

/** The Payme storm against the in-process shop on each server database: every scenario it can run passes (P8 skips). */
describe.each(SERVERS.filter((server) => PAYME_BACKENDS.includes(server.backend)))(
  'Payme storm on $name',
  ({ backend }) => {
    let app: PaymeStormApp;
    beforeAll(async () => {
      app = await startPaymeStormApp(backend);
    });
    afterAll(async () => app?.close());

    it('passes; one perform, one paid transition and one fulfilment per paid order', async () => {
      const report = await runPaymeStorm({ target: app.target, timeoutMs: 20_000 });
      const table = formatPaymeStormTable(report);
      expect(report.passed, table).toBe(true);
      expect(report.results.filter((r) => r.verdict === 'skip').map((r) => r.id)).toEqual([8]);
      for (const order of report.results.flatMap((r) => r.orders)) {
        expect(order.performs, table).toBeLessThanOrEqual(1);
        expect([order.paidTransitions, order.fulfilments], table).toEqual([order.performs, order.performs]);
      }
    });
  },
);
