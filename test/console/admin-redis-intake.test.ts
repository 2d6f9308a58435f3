import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RequestKey } from '../../packages/payonce/src/core/request-key.js';
import { deleteKeysWithPrefix, redisTestClient, redisTestUrl } from '../contract/backends/redis.js';
import { type Harness, startHarness } from '../service/service-harness.js';
import { admin } from './admin-client.js';

const TOKEN = `tok_${randomUUID().replace(/-/g, '')}`;
const PREFIX = `payonce-admin-intake-${randomUUID()}:`;
const STALE_MS = 300_000;

describe('operator console with the intake receipts in Redis (issue 34 item 18)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      adminToken: TOKEN,
      redisUrl: redisTestUrl(),
      redisPrefix: PREFIX,
      receiptStaleAfterMs: STALE_MS,
      worker: false,
    });
  });
  afterAll(async () => {
    await h?.close();
    const client = redisTestClient();
    await deleteKeysWithPrefix(client, PREFIX);
    await client.quit();
  });

  it('counts a claim abandoned in Redis (not in SQL) among the overview stuck receipts', async () => {
    const intake = h.service.context.intakeGuard.store;
    expect(intake.name).toBe('redis');
    const stuckOf = async () =>
      (await admin<{ receipts: { stuck: number } }>(h.service.url, 'GET', '/admin/api/overview', { token: TOKEN })).body
        .receipts.stuck;
    expect(await stuckOf()).toBe(0);

    const now = Date.now();
    await intake.insertClaim({
      key: new RequestKey('stripe', `evt_abandoned_${randomUUID()}`),
      nowMs: now - 2 * STALE_MS,
      fingerprint: null,
    });
    await intake.insertClaim({
      key: new RequestKey('stripe', `evt_live_${randomUUID()}`),
      nowMs: now,
      fingerprint: null,
    });
    expect(await stuckOf()).toBe(1);
  });
});
