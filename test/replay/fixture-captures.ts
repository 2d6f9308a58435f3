import type { CaptureExpectation } from '../../packages/storm/src/replay/capture.js';
import type { CaptureRecord } from '../../packages/storm/src/replay/capture-line.js';
import { fixtureFiles, isVector, readFixture, type Vector } from '../webhooks/fixtures.js';
import { signStandardWebhooks, stripeV1 } from '../webhooks/signers.js';

/** The webhook endpoints of the reference service (docs/service.md) and the fixture folders each one accepts. */
export type ServiceEndpoint = 'stripe' | 'standard-webhooks';

/** Fixture folder → the service endpoint whose scheme verifies it (Svix is Standard Webhooks with `svix-*` headers). */
export const ENDPOINT_OF_FOLDER: Readonly<Record<string, ServiceEndpoint>> = {
  stripe: 'stripe',
  'standard-webhooks': 'standard-webhooks',
  svix: 'standard-webhooks',
};

/**
 * Fixture files of those folders that hold no delivery, with the reason. Every other file must become captures:
 * a new fixture file fails the test until it is turned into captures or listed here.
 */
export const NOT_DELIVERIES: Readonly<Record<string, string>> = {
  'stripe/signature/hmac-primitive-vectors.json': 'raw HMAC primitive vectors: no header, no timestamp, no delivery',
  'stripe/payloads/openapi-resource-fixtures.json':
    'resource shapes, not events: the payment_intent and charge resources are wrapped in events below',
  'standard-webhooks/payloads/signed-content-example.json':
    'the spec example of the signed string; no secret is published, so it cannot verify',
};

/**
 * Where the service as configured deliberately differs from the reference library a vector documents. The
 * fixture's `expected` is still checked to be what the file says, so a changed fixture is noticed.
 */
export const DEVIATIONS: Readonly<
  Record<string, { fixtureSays: 'valid' | 'invalid'; signatureValid: boolean; why: string }>
> = {
  'stripe/signature/10-secret-with-trailing-space.json': {
    fixtureSays: 'invalid',
    signatureValid: true,
    why: 'the service trims configured secrets (comma-separated list, docs/service.md), so the stray space is gone',
  },
  'stripe/signature/11-future-timestamp.json': {
    fixtureSays: 'valid',
    signatureValid: false,
    why: 'issue 4: payonce applies the Stripe window in both directions; stripe-node only rejects old events',
  },
};

/**
 * What the service does with each accepted payment event (a type of `PAYMENT_EVENT_TYPES`) from the fixtures, none
 * of which belongs to an order it knows: `parked` — recorded once in `payonce_payment_events` and kept in the inbox
 * until an attempt matches (SPEC §6); `declined` — acknowledged 200 with `declined` and recorded nowhere else. An
 * accepted payment event missing here fails the test.
 */
export const PAYMENT_OUTCOMES: Readonly<Record<string, 'parked' | 'declined'>> = {
  'stripe:payloads:charge.refunded': 'parked',
  'stripe:payloads:openapi-resource-fixtures#payment_intent.succeeded': 'parked',
};

/**
 * Authentic deliveries of a payment event type the service acts on that it cannot act on, with the reason: refused
 * 400 `MALFORMED_WEBHOOK_PAYLOAD` with no receipt, so the provider keeps it failing and a human looks.
 */
export const UNUSABLE_PAYMENT_EVENTS: Readonly<Record<string, string>> = {
  'stripe:payloads:openapi-resource-fixtures#charge.succeeded':
    'a charge.succeeded naming no PaymentIntent and no merchant reference: no attempt can ever match it',
};

/** The signing secrets the test configures for the payload examples it signs itself. */
export const TEST_SECRETS: Readonly<Record<ServiceEndpoint, string>> = {
  stripe: 'whsec_replay_real_input_test',
  // whsec_ + base64 of 24 bytes 0x00..0x17: a Standard Webhooks secret made for this test.
  'standard-webhooks': `whsec_${Buffer.from(Array.from({ length: 24 }, (_, i) => i)).toString('base64')}`,
};

/** "Now" of the payload examples' service, Unix seconds (2026-01-01T00:00:00Z). */
export const PAYLOAD_NOW_SECONDS = 1_767_225_600;

/** One fixture turned into a capture, with what the service must do with it. */
export interface FixtureCapture {
  readonly record: CaptureRecord & { readonly id: string; readonly expect: CaptureExpectation };
  readonly endpoint: ServiceEndpoint;
  /** The secret the service is configured with for this capture's group. */
  readonly secret: string;
  /** The service clock for this capture's group, Unix seconds. */
  readonly nowSeconds: number;
  /**
   * The signature tolerance the vector was written for (`tolerance_seconds`), configured on its group's service
   * as `webhookToleranceSec`; `null` when the vector names none (the service's default, 300 s).
   */
  readonly toleranceSeconds: number | null;
  /** The fixture file (relative to the fixtures root), with `#n` for generated vectors. */
  readonly fixture: string;
  readonly kind: 'vector' | 'payload';
  /** Whether the service's scheme accepts the signature (the vector's `expected`, corrected by {@link DEVIATIONS}). */
  readonly signatureValid: boolean;
  /** The receipt key the intake uses: Stripe `id`, Standard Webhooks `svix-id` / `webhook-id`; null when absent. */
  readonly eventId: string | null;
  /**
   * True when the service takes the delivery once its signature verifies: a JSON object with an event id
   * (`eventId`), not listed in {@link UNUSABLE_PAYMENT_EVENTS}. Its type may be one the service does not handle, or
   * none: it is acknowledged with no business action.
   */
  readonly isEvent: boolean;
}

function header(headers: Readonly<Record<string, string>>, name: string): string | undefined {
  const found = Object.keys(headers).find((h) => h.toLowerCase() === name);
  return found === undefined ? undefined : headers[found];
}

function bodyJson(raw: string): Record<string, unknown> | null {
  try {
    const value = JSON.parse(raw) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

function eventIdOf(endpoint: ServiceEndpoint, headers: Readonly<Record<string, string>>, raw: string): string | null {
  if (endpoint === 'stripe') {
    const id = bodyJson(raw)?.id;
    return typeof id === 'string' ? id : null;
  }
  return header(headers, 'svix-id') ?? header(headers, 'webhook-id') ?? null;
}

function slug(fixture: string): string {
  return fixture.replace(/\.json$/, '').replaceAll('/', ':');
}

function fromVector(fixture: string, vector: Vector): FixtureCapture {
  const folder = fixture.split('/')[0]!;
  const endpoint = ENDPOINT_OF_FOLDER[folder]!;
  const deviation = DEVIATIONS[fixture];
  if (deviation && deviation.fixtureSays !== vector.expected) {
    throw new Error(`${fixture} now says ${vector.expected}; review DEVIATIONS`);
  }
  const signatureValid = deviation ? deviation.signatureValid : vector.expected === 'valid';
  return capture({
    fixture,
    kind: 'vector',
    endpoint,
    secret: vector.secret,
    nowSeconds: vector.timestamp_now!,
    toleranceSeconds: vector.tolerance_seconds ?? null,
    headers: vector.headers,
    raw: vector.raw_body,
    signatureValid,
    note: `fixture expected ${vector.expected}${deviation ? `; deviation: ${deviation.why}` : ''}; ${vector.reason}`,
  });
}

function capture(input: {
  fixture: string;
  kind: 'vector' | 'payload';
  endpoint: ServiceEndpoint;
  secret: string;
  nowSeconds: number;
  toleranceSeconds: number | null;
  headers: Readonly<Record<string, string>>;
  raw: string;
  signatureValid: boolean;
  note: string;
}): FixtureCapture {
  const body = bodyJson(input.raw);
  const eventId = eventIdOf(input.endpoint, input.headers, input.raw);
  const id = slug(input.fixture);
  const unusable = UNUSABLE_PAYMENT_EVENTS[id];
  const isEvent = body !== null && eventId !== null && unusable === undefined;
  const expect: CaptureExpectation = input.signatureValid && isEvent ? 'accepted' : 'rejected';
  const type = typeof body?.type === 'string' ? body.type : null;
  const why = !input.signatureValid
    ? ''
    : unusable !== undefined
      ? `; signature valid, but ${unusable}: 400`
      : !isEvent
        ? `; signature valid but the body is ${body === null ? 'not a JSON object' : 'without an event id'}: 400`
        : type === null
          ? '; signature valid, no event type: acknowledged once with no business action'
          : '';
  return {
    record: {
      id,
      path: `/webhooks/${input.endpoint}`,
      headers: { 'content-type': 'application/json', ...input.headers },
      body: input.raw,
      expect,
      note: `${input.note}${why}`,
    },
    endpoint: input.endpoint,
    secret: input.secret,
    nowSeconds: input.nowSeconds,
    toleranceSeconds: input.toleranceSeconds,
    fixture: input.fixture,
    kind: input.kind,
    signatureValid: input.signatureValid,
    eventId,
    isEvent,
  };
}

/** The Svix large-body vectors: generator schema (`raw_body_char` × `raw_body_repeat`), all valid. */
function largePayloadVectors(fixture: string): FixtureCapture[] {
  const file = readFixture(fixture) as {
    secret: string;
    msg_id: string;
    timestamp: number;
    timestamp_now: number;
    raw_body_char: string;
    vectors: { raw_body_repeat: number; expected_signature: string; expected: 'valid' | 'invalid' }[];
  };
  return file.vectors.map((v, i) =>
    fromVector(`${fixture.replace(/\.json$/, '')}#${i + 1}.json`, {
      description: `${v.raw_body_repeat} × "${file.raw_body_char}"`,
      secret: file.secret,
      headers: {
        'webhook-id': file.msg_id,
        'webhook-timestamp': String(file.timestamp),
        'webhook-signature': v.expected_signature,
      },
      raw_body: file.raw_body_char.repeat(v.raw_body_repeat),
      timestamp_now: file.timestamp_now,
      expected: v.expected,
      reason: 'Svix large-payload sign() vector',
    }),
  );
}

/** Signs a payload example the way its provider would, with the test's secret at {@link PAYLOAD_NOW_SECONDS}. */
function signedPayload(fixture: string, endpoint: ServiceEndpoint, raw: string, note: string): FixtureCapture {
  const secret = TEST_SECRETS[endpoint];
  const t = PAYLOAD_NOW_SECONDS;
  const bytes = Buffer.from(raw, 'utf8');
  const headers: Record<string, string> =
    endpoint === 'stripe'
      ? { 'Stripe-Signature': `t=${t},v1=${stripeV1(secret, t, bytes)}` }
      : (() => {
          const id = `msg_replay_${slug(fixture).replaceAll(/[^A-Za-z0-9]/g, '_')}`;
          const key = secret.slice('whsec_'.length);
          return {
            'webhook-id': id,
            'webhook-timestamp': String(t),
            'webhook-signature': signStandardWebhooks(key, id, t, bytes),
          };
        })();
  return capture({
    fixture,
    kind: 'payload',
    endpoint,
    secret,
    nowSeconds: t,
    toleranceSeconds: null,
    headers,
    raw,
    signatureValid: true,
    note,
  });
}

/**
 * Stripe PaymentIntent / Charge events built as the fixtures README says ("build them from the payment_intent
 * resource … inside the standard event envelope"): the envelope of `plan.created.openapi-fixture.json` with a new
 * id and type and the resource as `data.object`, serialized with two-space indentation like the other examples.
 */
function builtStripeEvents(): FixtureCapture[] {
  const envelope = (
    readFixture('stripe/payloads/plan.created.openapi-fixture.json') as { body: Record<string, unknown> }
  ).body;
  const resources = (
    readFixture('stripe/payloads/openapi-resource-fixtures.json') as {
      resources: Record<string, unknown>;
    }
  ).resources;
  const built: [string, string][] = [
    ['payment_intent', 'payment_intent.succeeded'],
    ['charge', 'charge.succeeded'],
  ];
  return built.map(([resource, type]) => {
    const raw = JSON.stringify(
      { ...envelope, id: `evt_replay_${type.replace('.', '_')}`, type, data: { object: resources[resource] } },
      null,
      2,
    );
    return signedPayload(
      `stripe/payloads/openapi-resource-fixtures#${type}.json`,
      'stripe',
      raw,
      `derived by the test: ${type} event around the openapi ${resource} resource, for a payment the service does not know`,
    );
  });
}

/**
 * Every signature vector and payload example of the fixture folders the service accepts, as captures: vectors
 * with their headers and raw body verbatim (never re-signed), payload examples with their raw body verbatim and
 * a signature the test computes with {@link TEST_SECRETS}.
 * @returns the captures and the fixture files read (to check none was left out).
 */
export function fixtureCaptures(): { captures: FixtureCapture[]; filesRead: string[] } {
  const captures: FixtureCapture[] = [];
  const filesRead: string[] = [];
  for (const fixture of fixtureFiles('signature')) {
    const folder = fixture.split('/')[0]!;
    if (ENDPOINT_OF_FOLDER[folder] === undefined || NOT_DELIVERIES[fixture] !== undefined) continue;
    const value = readFixture(fixture);
    if (isVector(value)) captures.push(fromVector(fixture, value));
    else if (fixture === 'svix/signature/large-payload-vectors.json') captures.push(...largePayloadVectors(fixture));
    else throw new Error(`${fixture}: unknown vector schema; turn it into captures or list it in NOT_DELIVERIES`);
    filesRead.push(fixture);
  }
  for (const fixture of fixtureFiles('payloads')) {
    const folder = fixture.split('/')[0]!;
    const endpoint = ENDPOINT_OF_FOLDER[folder];
    if (endpoint === undefined || NOT_DELIVERIES[fixture] !== undefined) continue;
    const example = readFixture(fixture) as { raw_body?: unknown; event_type?: unknown };
    if (typeof example.raw_body !== 'string') throw new Error(`${fixture}: no raw_body`);
    captures.push(signedPayload(fixture, endpoint, example.raw_body, `payload example ${String(example.event_type)}`));
    filesRead.push(fixture);
  }
  captures.push(...builtStripeEvents());
  filesRead.push('stripe/payloads/openapi-resource-fixtures.json');
  return { captures, filesRead };
}

/** Every `*.json` file under the accepted providers' folders (signature and payloads), relative to the fixtures root. */
export function acceptedProviderFixtureFiles(): string[] {
  return [...fixtureFiles('signature'), ...fixtureFiles('payloads')]
    .filter((f) => ENDPOINT_OF_FOLDER[f.split('/')[0]!] !== undefined)
    .sort();
}
