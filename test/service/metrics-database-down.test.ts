import { describe, expect, it } from 'vitest';
import { findFreePort } from '../../packages/cli/src/demo/free-port.js';
import { createPostgresNamespace } from '../contract/backends/postgres.js';
import { call, startHarness, until } from './service-harness.js';
import { cleanupAfterEach, serviceBehindSilentDatabase } from './silent-database.js';

/** `/metrics` answered within a generous bound; its status and text. */
async function scrape(baseUrl: string): Promise<{ status: number; text: string }> {
  const response = await fetch(`${baseUrl}/metrics`, { signal: AbortSignal.timeout(30_000) });
  return { status: response.status, text: await response.text() };
}

/** The value of an unlabelled series in a Prometheus exposition, or null when absent. */
function series(text: string, name: string): number | null {
  const line = text.split('\n').find((row) => row.startsWith(`${name} `));
  return line === undefined ? null : Number(line.slice(name.length + 1));
}

describe('/metrics while the database is down (issue 34 item H2)', () => {
  const defer = cleanupAfterEach();

  it('answers 200 with payonce_store_up 0 while nothing listens at the database address', async () => {
    const port = await findFreePort();
    const h = await startHarness({
      databaseUrl: `postgres://postgres@127.0.0.1:${port}/absent`,
      storeTimeoutMs: 300,
    });
    defer(h.close);
    const metrics = await scrape(h.service.url);
    expect(metrics.status).toBe(200);
    expect(series(metrics.text, 'payonce_store_up')).toBe(0);
    expect(series(metrics.text, 'payonce_payment_alerts_total')).toBe(0);
    // A scrape's failed reads are counted for the next scrape (the counter is written while the gauges still read).
    const next = await scrape(h.service.url);
    expect(next.status).toBe(200);
    expect(next.text).toMatch(/payonce_metrics_store_read_failures_total\{gauge="outbox_lag_seconds"\} [1-9]/);
  }, 60_000);

  it('answers 200 while the database is silent, at start and after it froze; store_up follows the database', async () => {
    const { database, h } = await serviceBehindSilentDatabase(await createPostgresNamespace(), '5432', defer);

    const atStart = await scrape(h.service.url);
    expect(atStart.status).toBe(200);
    expect(series(atStart.text, 'payonce_store_up')).toBe(0);

    database.answer();
    await until(async () => (await call(h.service.url, 'GET', '/healthz')).status === 200, 60_000, '/healthz 200');
    // The scrape's own store probe has a short timeout: on a loaded host one probe can miss while the database is up,
    // so the gauge is read until it follows (it must, within the bound).
    let up = { status: 0, text: '' };
    await until(
      async () => {
        up = await scrape(h.service.url);
        return up.status === 200 && series(up.text, 'payonce_store_up') === 1;
      },
      60_000,
      'payonce_store_up 1',
    );
    expect(up.status).toBe(200);
    expect(series(up.text, 'payonce_store_up')).toBe(1);
    expect(series(up.text, 'payonce_receipts_stuck')).toBe(0);

    database.freeze();
    const frozen = await scrape(h.service.url);
    expect(frozen.status).toBe(200);
    expect(series(frozen.text, 'payonce_store_up')).toBe(0);
    // The gauge whose read timed out keeps its last value.
    expect(series(frozen.text, 'payonce_receipts_stuck')).toBe(0);
  }, 120_000);
});
