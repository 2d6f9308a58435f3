import { randomUUID } from 'node:crypto';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../packages/sandbox/src/create-sandbox.js';
import type { FaultRulesFile } from '../../packages/sandbox/src/faults/fault-rules.js';
import { SANDBOX_API_KEY } from '../../packages/sandbox/src/wire/api-key.js';

// `payonce storm --faults`: the user's rules are about the app's calls; the storm's own calls to the sandbox (its
// provider checks in scenarios 6 and 7, its PaymentIntent reads) send `Sandbox-Fault-Rules: skip`.
describe('sandbox: Sandbox-Fault-Rules: skip', () => {
  let sandbox: Sandbox | undefined;
  afterEach(async () => {
    await sandbox?.close();
    sandbox = undefined;
  });

  const start = async (faultRules: FaultRulesFile) => {
    sandbox = await createSandbox({ timeScale: 0.001, faultRules });
    return sandbox;
  };

  const create = async (box: Sandbox, headers: Record<string, string> = {}) => {
    const reference = randomUUID();
    const response = await request(`${box.url}/v1/payment_intents`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${SANDBOX_API_KEY}`,
        'idempotency-key': `key-${reference}`,
        ...headers,
      },
      body: JSON.stringify({
        amount: 1999,
        currency: 'eur',
        confirm: true,
        metadata: { merchant_reference: reference },
      }),
    });
    const json = (await response.body.json()) as { error?: { message?: string } };
    return { status: response.statusCode, requestId: String(response.headers['request-id'] ?? ''), json };
  };

  it('a request with the header is neither struck nor counted by the rules; the next plain one is', async () => {
    const box = await start({
      rules: [
        { method: 'POST', path: '/v1/payment_intents', fault: '500-after-commit, webhook-duplicate=2', count: 1 },
      ],
    });
    const skipped = await create(box, { 'sandbox-fault-rules': 'skip' });
    expect(skipped.status).toBe(200);
    const ledger = box.controls.ledgerSnapshot();
    expect(ledger.faults).toEqual([]);
    expect(ledger.requests.at(-1)?.faults).toEqual([]);
    const plain = await create(box);
    expect(plain.status).toBe(500);
    const struck = box.controls.faults(plain.requestId);
    expect(struck.map((f) => f.fault).sort()).toEqual(['500-after-commit', 'webhook-duplicate']);
    expect(struck.find((f) => f.fault === '500-after-commit')?.source).toBe('rule:1');
  });

  it('draws nothing for a skipped request: the plain requests get the same faults as without it', async () => {
    const rules: FaultRulesFile = {
      seed: 5,
      rules: [{ method: 'POST', path: '/v1/payment_intents', fault: '503-before-commit', probability: 0.5 }],
    };
    const statuses = async (withSkipped: boolean) => {
      const box = await start(rules);
      const seen: number[] = [];
      for (let i = 0; i < 12; i++) {
        if (withSkipped) expect((await create(box, { 'Sandbox-Fault-Rules': 'skip' })).status).toBe(200);
        seen.push((await create(box)).status);
      }
      await box.close();
      sandbox = undefined;
      return seen;
    };
    const alone = await statuses(false);
    expect(alone).toContain(503);
    expect(alone).toContain(200);
    expect(await statuses(true)).toEqual(alone);
  });

  it('another value is a 400 invalid_request_error naming the header', async () => {
    const box = await start({ rules: [] });
    const bad = await create(box, { 'sandbox-fault-rules': 'off' });
    expect(bad.status).toBe(400);
    expect(bad.json.error?.message).toMatch(/Sandbox-Fault-Rules/);
  });
});
