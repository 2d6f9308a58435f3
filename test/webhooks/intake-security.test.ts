import { connect } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RequestKey } from '../../packages/payonce/src/core/request-key.js';
import type { IntakeEvents } from '../../packages/payonce/src/webhooks/intake-events.js';
import { clickProfile } from '../../packages/payonce/src/webhooks/providers/click-profile.js';
import { githubProfile } from '../../packages/payonce/src/webhooks/providers/github-profile.js';
import { paymeProfile } from '../../packages/payonce/src/webhooks/providers/payme-profile.js';
import type { ProviderEvent, ProviderProfile } from '../../packages/payonce/src/webhooks/providers/provider-event.js';
import { standardWebhooksProfile } from '../../packages/payonce/src/webhooks/providers/standard-webhooks-profile.js';
import { stripeProfile } from '../../packages/payonce/src/webhooks/providers/stripe-profile.js';
import { clickScheme } from '../../packages/payonce/src/webhooks/verify/click-scheme.js';
import { githubScheme } from '../../packages/payonce/src/webhooks/verify/github-scheme.js';
import { paymeAuthScheme } from '../../packages/payonce/src/webhooks/verify/payme-auth-scheme.js';
import type { SignatureScheme } from '../../packages/payonce/src/webhooks/verify/signature-scheme.js';
import { standardWebhooksScheme } from '../../packages/payonce/src/webhooks/verify/standard-webhooks-scheme.js';
import { stripeScheme } from '../../packages/payonce/src/webhooks/verify/stripe-scheme.js';
import { bodyBytes, fixtureFiles, isVector, readFixture, type Vector } from './fixtures.js';
import { stripeHeaders } from './intake-deliveries.js';
import { type EndpointName, type IntakeWorld, send, startIntakeWorld, WEBHOOK_BACKENDS } from './intake-support.js';

type Record_ = IntakeEvents['delivery']['record'];

/** Endpoint and scheme for each vector directory. Shopify has signature vectors but no provider profile yet. */
const vectorEndpoint: Record<string, { endpoint: EndpointName; scheme: (v: Vector) => SignatureScheme }> = {
  stripe: {
    endpoint: 'stripe',
    scheme: (v) => stripeScheme({ secrets: v.secret, toleranceSeconds: v.tolerance_seconds }),
  },
  'standard-webhooks': { endpoint: 'standard-webhooks', scheme: (v) => standardWebhooksScheme({ secrets: v.secret }) },
  svix: { endpoint: 'svix', scheme: (v) => standardWebhooksScheme({ secrets: v.secret, name: 'svix' }) },
  github: { endpoint: 'github', scheme: (v) => githubScheme({ secrets: v.secret }) },
  payme: { endpoint: 'payme', scheme: (v) => paymeAuthScheme({ keys: v.secret }) },
  click: { endpoint: 'click', scheme: (v) => clickScheme({ secrets: v.secret }) },
};
const NO_PROFILE = new Set(['shopify']);

/** payonce rejects this "valid" stripe-node vector on purpose (window in both directions; see verify tests). */
const DEVIATIONS = new Set(['stripe/signature/11-future-timestamp.json']);

const profiles: Partial<Record<EndpointName, ProviderProfile>> = {
  stripe: stripeProfile(),
  'standard-webhooks': standardWebhooksProfile(),
  svix: standardWebhooksProfile({ provider: 'svix' }),
  github: githubProfile(),
  payme: paymeProfile(),
  click: clickProfile(),
};

/** The event a body would be, read by an independent profile, or null when it cannot be read. */
function wouldBe(endpoint: EndpointName, body: Uint8Array, headers: Record<string, string>): ProviderEvent | null {
  try {
    return profiles[endpoint]?.extract({ rawBody: body, headers }) ?? null;
  } catch {
    return null;
  }
}

/** Sends raw bytes over TCP (headers a fetch client would refuse) and returns the status code, or null. */
function rawPost(url: string, path: string, headerLines: string[], body: Buffer): Promise<number | null> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const status = /^HTTP\/1\.1 (\d{3})/.exec(Buffer.concat(chunks).toString('latin1'));
      resolve(status ? Number(status[1]) : null);
    });
    const head = [
      `POST ${path} HTTP/1.1`,
      `Host: ${hostname}`,
      'Connection: close',
      'Content-Type: application/json',
      `Content-Length: ${body.byteLength}`,
      ...headerLines,
      '',
      '',
    ].join('\r\n');
    socket.write(Buffer.concat([Buffer.from(head, 'latin1'), body]));
  });
}

for (const backend of WEBHOOK_BACKENDS) {
  describe(`${backend}: webhook intake refuses forged, stale, malformed and oversized deliveries`, () => {
    let world: IntakeWorld;
    const records: Record_[] = [];
    beforeAll(async () => {
      world = await startIntakeWorld(backend);
      world.intake.on('delivery', ({ record }) => records.push(record));
    });
    afterEach(() => {
      world.restoreSchemes();
      world.clock.set(Date.now());
    });
    afterAll(async () => {
      await world?.close();
    });
    const endpointUrl = (endpoint: string) => `${world.url}/webhooks/${endpoint}`;
    const nowSec = () => Math.floor(world.clock.now() / 1000);
    const totalRuns = () => [...world.runs.values()].reduce((a, b) => a + b, 0);

    it('runs every signature vector through the intake: valid ones pass verification, invalid ones get 400/401 (Payme, Click: their error envelope) with no receipt and no handler run', async () => {
      const files = [...fixtureFiles('signature'), ...fixtureFiles('auth')].filter((f) => isVector(readFixture(f)));
      const covered = files.filter((f) => !NO_PROFILE.has(f.split('/')[0] ?? ''));
      expect(covered.length).toBeGreaterThanOrEqual(45);
      for (const file of covered) {
        const v = readFixture(file) as Vector;
        const dir = file.split('/')[0] ?? '';
        const target = vectorEndpoint[dir];
        if (!target) throw new Error(`no endpoint for vector directory ${dir}`);
        world.useScheme(target.endpoint, target.scheme(v));
        world.clock.set(v.timestamp_now === null ? Date.now() : v.timestamp_now * 1000);
        const headers: Record<string, string> = { ...v.headers };
        if (dir === 'github')
          Object.assign(headers, { 'x-github-delivery': `vector-${file}`, 'x-github-event': 'ping' });
        const body = bodyBytes(v.raw_body);
        const event = wouldBe(target.endpoint, body, headers);
        const runsBefore = totalRuns();
        const receiptBefore = event?.key ? await world.guard.find(event.key) : null;
        const seen = records.length;
        const reply = await send(endpointUrl(target.endpoint), body, headers);
        const record = records[records.length - 1];
        expect(records.length, file).toBe(seen + 1);
        const valid = v.expected === 'valid' && !DEVIATIONS.has(file);
        if (valid) {
          expect(record?.signature, file).toBe('valid');
          expect(reply.status, file).not.toBe(401);
          continue;
        }
        expect(record, file).toMatchObject({ decision: 'rejected', outcome: 'rejected', eventKey: null });
        expect(record?.signature, file).not.toBe('valid');
        expect(totalRuns(), file).toBe(runsBefore);
        // No receipt written or changed (an earlier valid vector may own the same key, e.g. Click 02 and 03).
        if (event?.key) expect(await world.guard.find(event.key), file).toEqual(receiptBefore);
        if (target.endpoint === 'payme') {
          expect(reply.status, file).toBe(200);
          expect((reply.json() as { error: { code: number } }).error.code, file).toBe(-32504);
        } else if (target.endpoint === 'click') {
          expect(reply.status, file).toBe(200);
          expect((reply.json() as { error: number }).error, file).toBe(-1);
        } else {
          expect([400, 401], file).toContain(reply.status);
          expect(reply.headers.get('content-type'), file).toBe('application/problem+json');
        }
      }
    });

    it('refuses a re-serialised body (signature over other bytes) and accepts the original bytes', async () => {
      const fixture = readFixture('stripe/payloads/charge.refunded.json') as { raw_body: string };
      const original = bodyBytes(fixture.raw_body);
      const headers = stripeHeaders(original, nowSec());
      const reserialised = bodyBytes(JSON.stringify(JSON.parse(fixture.raw_body)));
      expect(reserialised).not.toEqual(original);
      const key = stripeProfile().extract({ rawBody: original }).key!;
      const forged = await send(endpointUrl('stripe'), reserialised, headers);
      expect(forged.status).toBe(401);
      expect(forged.json()).toMatchObject({ code: 'WEBHOOK_SIGNATURE_INVALID', status: 401 });
      expect(await world.guard.find(key)).toBeNull();
      expect(records[records.length - 1]).toMatchObject({ decision: 'rejected', signature: 'signature_mismatch' });
      expect(world.runs.get(key.toString())).toBeUndefined();
      const genuine = await send(endpointUrl('stripe'), original, headers);
      expect(genuine.status).toBe(200);
      expect(world.runs.get(key.toString())).toBe(1);
    });

    it('verifies the exact bytes whatever the Content-Type says, and a different Unicode form fails', async () => {
      const t = nowSec();
      const event = (id: string, text: string) =>
        bodyBytes(
          JSON.stringify({ id, object: 'event', type: 'ping', created: t, data: { object: { id: 'o', note: text } } }),
        );
      for (const [i, type] of [null, 'text/plain; charset=utf-16', 'application/x-www-form-urlencoded'].entries()) {
        const body = event(`evt_type_${i}_${backend}`, 'caf\u00e9 \u{1f600}');
        const headers = stripeHeaders(body, t);
        if (type === null) delete headers['content-type'];
        else headers['content-type'] = type;
        expect((await send(endpointUrl('stripe'), body, headers)).status, String(type)).toBe(200);
        expect(world.runs.get(`stripe/evt_type_${i}_${backend}`)).toBe(1);
      }
      const id = `evt_nfd_${backend}`;
      const composed = event(id, 'caf\u00e9');
      const decomposed = event(id, 'cafe\u0301');
      expect(decomposed).not.toEqual(composed);
      const headers = stripeHeaders(composed, t);
      expect((await send(endpointUrl('stripe'), decomposed, headers)).status).toBe(401);
      expect(await world.guard.find(new RequestKey('stripe', id))).toBeNull();
      expect((await send(endpointUrl('stripe'), composed, headers)).status).toBe(200);
      const decomposedHeaders = stripeHeaders(decomposed, t);
      // Its own bytes verify; the key is the same event id with another body, so it is refused as a mismatch.
      expect((await send(endpointUrl('stripe'), decomposed, decomposedHeaders)).status).toBe(422);
    });

    it('leaves no receipt and no "new" journal row for a forged event (wrong secret), only a rejected row', async () => {
      const body = bodyBytes(
        JSON.stringify({
          id: `evt_forged_${backend}`,
          object: 'event',
          type: 'payment_intent.succeeded',
          created: nowSec(),
          data: { object: { id: `pi_forged_${backend}`, object: 'payment_intent', amount: 100, currency: 'usd' } },
        }),
      );
      const reply = await send(
        endpointUrl('stripe'),
        body,
        stripeHeaders(body, nowSec(), 'whsec_not_the_configured_one'),
      );
      expect(reply.status).toBe(401);
      expect(reply.text()).not.toContain('whsec_');
      expect(await world.guard.find(new RequestKey('stripe', `evt_forged_${backend}`))).toBeNull();
      expect(await world.journal.forPayment(`pi_forged_${backend}`)).toEqual([]);
      expect(records[records.length - 1]).toMatchObject({
        provider: 'stripe',
        decision: 'rejected',
        signature: 'signature_mismatch',
        responseStatus: 401,
      });
      expect(records.some((r) => r.eventKey === `evt_forged_${backend}`)).toBe(false);
    });

    it('refuses stale and future Stripe timestamps with 401 before any receipt', async () => {
      for (const offset of [-301, 301]) {
        const id = `evt_window_${offset}_${backend}`;
        const body = bodyBytes(
          JSON.stringify({ id, object: 'event', type: 'ping', created: nowSec(), data: { object: { id: 'x_1' } } }),
        );
        const reply = await send(endpointUrl('stripe'), body, stripeHeaders(body, nowSec() + offset));
        expect(reply.status).toBe(401);
        expect(records[records.length - 1]?.signature).toBe(offset < 0 ? 'timestamp_too_old' : 'timestamp_too_new');
        expect(await world.guard.find(new RequestKey('stripe', id))).toBeNull();
      }
    });

    it('answers malformed signature headers with 400/401 and keeps serving', async () => {
      const body = bodyBytes(
        JSON.stringify({ id: `evt_headers_${backend}`, object: 'event', type: 'ping', created: 1 }),
      );
      const t = nowSec();
      const cases: Array<[string | null, number]> = [
        [null, 401],
        ['', 401],
        ['garbage', 400],
        ['t=', 400],
        [`t=${t}`, 400],
        [`t=abc,v1=${'0'.repeat(64)}`, 400],
        [`t=${t * 1000},v1=${'0'.repeat(64)}`, 400],
        [`t=-5,v1=${'0'.repeat(64)}`, 400],
        [`t=${t},v1=zz`, 401],
        [`t=${t},v1=${'a'.repeat(63)}`, 401],
        [`t=${t},v1=${'f'.repeat(10_000)}`, 401],
        [`t=${t},t=${t},v1=${'0'.repeat(64)}`, 400],
        [`t=${t},v0=${'0'.repeat(64)}`, 400],
        [`t=${t},v1=\u00fc\u00fc`, 401],
      ];
      for (const [value, status] of cases) {
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (value !== null) headers['stripe-signature'] = value;
        const reply = await send(endpointUrl('stripe'), body, headers);
        expect(reply.status, String(value).slice(0, 40)).toBe(status);
      }
      // Bytes a fetch client refuses: UTF-8 in the header, the header twice, a header line of 16 KB.
      const path = '/webhooks/stripe';
      const raw = Buffer.from(body);
      expect(await rawPost(world.url, path, [`Stripe-Signature: t=${t},v1=\u00e2\u0099\u00a5`], raw)).toBe(401);
      expect(
        await rawPost(world.url, path, [`Stripe-Signature: t=${t}`, `Stripe-Signature: v1=${'0'.repeat(64)}`], raw),
      ).toBe(401);
      expect(await rawPost(world.url, path, [`Stripe-Signature: ${'x'.repeat(16_000)}`], raw)).toBe(400);
      expect(await world.guard.find(new RequestKey('stripe', `evt_headers_${backend}`))).toBeNull();
      // Still up: a genuine delivery goes through.
      const ok = bodyBytes(
        JSON.stringify({
          id: `evt_after_${backend}`,
          object: 'event',
          type: 'ping',
          created: t,
          data: { object: { id: 'x_2' } },
        }),
      );
      expect((await send(endpointUrl('stripe'), ok, stripeHeaders(ok, t))).status).toBe(200);
    });

    it('accepts a 1.5 MB body and refuses a body over the 2 MiB default limit with 413 before any receipt', async () => {
      expect(world.intake.maxBodyBytes).toBe(2_097_152);
      const big = (id: string, bytes: number) => {
        const head = { id, object: 'event', type: 'payment_intent.succeeded', created: nowSec() };
        const skeleton = JSON.stringify({
          ...head,
          data: { object: { id: `pi_${id}`, object: 'payment_intent', metadata: { pad: '' } } },
        });
        const pad = 'x'.repeat(bytes - Buffer.byteLength(skeleton));
        return bodyBytes(
          JSON.stringify({
            ...head,
            data: { object: { id: `pi_${id}`, object: 'payment_intent', metadata: { pad } } },
          }),
        );
      };
      const accepted = big(`evt_big_${backend}`, 1_500_000);
      expect(accepted.byteLength).toBe(1_500_000);
      const ok = await send(endpointUrl('stripe'), accepted, stripeHeaders(accepted, nowSec()));
      expect(ok.status).toBe(200);
      expect(world.runs.get(`stripe/evt_big_${backend}`)).toBe(1);

      const refusedId = `evt_huge_${backend}`;
      const huge = big(refusedId, 2_097_153);
      const runs = totalRuns();
      const seen = records.length;
      const refused = await send(endpointUrl('stripe'), huge, stripeHeaders(huge, nowSec()));
      expect(refused.status).toBe(413);
      expect(await world.guard.find(new RequestKey('stripe', refusedId))).toBeNull();
      expect(totalRuns()).toBe(runs);
      expect(records.slice(seen)).toEqual([
        expect.objectContaining({ decision: 'rejected', signature: 'not_checked', responseStatus: 413, payload: null }),
      ]);
      // The same limit applies when a framework hands the intake the bytes itself.
      const direct = await world.intake.receive({
        endpoint: 'stripe',
        rawBody: huge,
        headers: stripeHeaders(huge, nowSec()),
      });
      expect(direct.status).toBe(413);
      expect(await world.guard.find(new RequestKey('stripe', refusedId))).toBeNull();
    });

    it('answers a forged Payme call with HTTP 200 JSON-RPC -32504 and a forged Click call with error -1', async () => {
      const wrong = readFixture('payme/auth/02-wrong-password.json') as Vector;
      const payme = await send(endpointUrl('payme'), bodyBytes(wrong.raw_body), wrong.headers);
      expect(payme.status).toBe(200);
      expect(payme.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32504 } });
      expect(payme.text()).not.toContain(wrong.secret);
      // The vector's secret is the one configured; its sign_string was made with another secret.
      const click = readFixture('click/signature/04-prepare-wrong-secret.json') as Vector;
      world.useScheme('click', clickScheme({ secrets: click.secret }));
      const event = clickProfile().extract({ rawBody: bodyBytes(click.raw_body) });
      const before = await world.guard.find(event.key!);
      const clickReply = await send(endpointUrl('click'), bodyBytes(click.raw_body), click.headers);
      expect(clickReply.status).toBe(200);
      expect(clickReply.json()).toMatchObject({ click_trans_id: 1111, error: -1, error_note: 'SIGN CHECK FAILED!' });
      expect(await world.guard.find(event.key!)).toEqual(before);
    });

    it('answers an unknown provider with 404 and writes nothing', async () => {
      const seen = records.length;
      const reply = await send(endpointUrl('nobody'), '{}', { 'content-type': 'application/json' });
      expect(reply.status).toBe(404);
      expect(records.length).toBe(seen);
    });
  });
}
