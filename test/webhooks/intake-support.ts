import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { ManualClock } from '../../packages/payonce/src/core/clock.js';
import { IdempotencyGuard } from '../../packages/payonce/src/core/idempotency-guard.js';
import type { Store } from '../../packages/payonce/src/core/store.js';
import { fastifyWebhooks } from '../../packages/payonce/src/webhooks/fastify-webhooks.js';
import {
  createWebhookIntake,
  type WebhookEndpoint,
  type WebhookIntake,
} from '../../packages/payonce/src/webhooks/intake.js';
import { WebhookDecline } from '../../packages/payonce/src/webhooks/intake-decline.js';
import type { DeliveryJournal } from '../../packages/payonce/src/webhooks/journal/delivery-journal.js';
import { MemoryDeliveryJournal } from '../../packages/payonce/src/webhooks/journal/memory-delivery-journal.js';
import { SqlDeliveryJournal } from '../../packages/payonce/src/webhooks/journal/sql-delivery-journal.js';
import { clickProfile } from '../../packages/payonce/src/webhooks/providers/click-profile.js';
import { githubProfile } from '../../packages/payonce/src/webhooks/providers/github-profile.js';
import { paymeProfile } from '../../packages/payonce/src/webhooks/providers/payme-profile.js';
import type { ProviderEvent, ProviderProfile } from '../../packages/payonce/src/webhooks/providers/provider-event.js';
import { standardWebhooksProfile } from '../../packages/payonce/src/webhooks/providers/standard-webhooks-profile.js';
import { stripeProfile } from '../../packages/payonce/src/webhooks/providers/stripe-profile.js';
import { yookassaProfile } from '../../packages/payonce/src/webhooks/providers/yookassa-profile.js';
import { clickScheme } from '../../packages/payonce/src/webhooks/verify/click-scheme.js';
import { customScheme } from '../../packages/payonce/src/webhooks/verify/custom-scheme.js';
import { githubScheme } from '../../packages/payonce/src/webhooks/verify/github-scheme.js';
import { headerValue } from '../../packages/payonce/src/webhooks/verify/headers.js';
import { paymeAuthScheme } from '../../packages/payonce/src/webhooks/verify/payme-auth-scheme.js';
import type { SignatureScheme } from '../../packages/payonce/src/webhooks/verify/signature-scheme.js';
import { standardWebhooksScheme } from '../../packages/payonce/src/webhooks/verify/standard-webhooks-scheme.js';
import { stripeScheme } from '../../packages/payonce/src/webhooks/verify/stripe-scheme.js';
import type { BackendName, TestBackend } from '../contract/backend.js';
import { backendFactories } from '../contract/backends/index.js';
import { readFixture, type Vector } from './fixtures.js';

/** Backends of the webhook tests: `PAYONCE_WEBHOOK_BACKENDS` (comma-separated) or memory, SQLite and PostgreSQL. */
export const WEBHOOK_BACKENDS = (process.env.PAYONCE_WEBHOOK_BACKENDS ?? 'memory,sqlite,postgres')
  .split(',')
  .map((name) => name.trim()) as BackendName[];

/** The endpoint names of the test intake (= the `:provider` path segment). */
export type EndpointName = 'stripe' | 'standard-webhooks' | 'svix' | 'github' | 'payme' | 'click' | 'yookassa';

/** A signature vector's secret, read from the fixture file. */
export const vectorSecret = (relative: string): string => (readFixture(relative) as Vector).secret;

/** The secret each endpoint is configured with by default (from the fixtures' valid vectors). */
export const DEFAULT_SECRETS: Record<Exclude<EndpointName, 'yookassa'>, string> = {
  stripe: vectorSecret('stripe/signature/01-valid-basic.json'),
  'standard-webhooks': vectorSecret('standard-webhooks/signature/01-official-sign-vector.json'),
  svix: vectorSecret('svix/signature/01-official-svix-headers.json'),
  github: vectorSecret('github/signature/02-octokit-foo-bar.json'),
  payme: vectorSecret('payme/auth/01-basic-auth-valid.json'),
  click: vectorSecret('click/signature/01-prepare-valid.json'),
};

function ipv4(text: string): number | null {
  const parts = text.split('.');
  if (parts.length !== 4 || parts.some((p) => !/^\d{1,3}$/.test(p) || Number(p) > 255)) return null;
  return parts.reduce((acc, p) => acc * 256 + Number(p), 0);
}

/** True when IPv4 `ip` is listed in YooKassa's allow-list fixture (single addresses and /n ranges). */
export function yookassaAllows(ip: string): boolean {
  const list = (readFixture('yookassa/ip-allowlist.json') as { docs_list: string[] }).docs_list;
  const addr = ipv4(ip);
  if (addr === null) return false;
  return list.some((entry) => {
    const [base, bits] = entry.split('/');
    const start = ipv4(base ?? '');
    if (start === null) return false;
    const size = 2 ** (32 - Number(bits ?? '32'));
    return addr >= start && addr < start + size;
  });
}

/** Default schemes, one per endpoint; tests may swap one for the duration of a case (`world.useScheme`). */
function defaultSchemes(): Record<EndpointName, SignatureScheme> {
  return {
    stripe: stripeScheme({ secrets: DEFAULT_SECRETS.stripe }),
    'standard-webhooks': standardWebhooksScheme({ secrets: DEFAULT_SECRETS['standard-webhooks'] }),
    svix: standardWebhooksScheme({ secrets: DEFAULT_SECRETS.svix, name: 'svix' }),
    github: githubScheme({ secrets: DEFAULT_SECRETS.github }),
    payme: paymeAuthScheme({ keys: DEFAULT_SECRETS.payme }),
    click: clickScheme({ secrets: DEFAULT_SECRETS.click }),
    yookassa: customScheme({
      name: 'yookassa-ip',
      verify: ({ headers }) => yookassaAllows(headerValue(headers, 'x-real-ip') ?? ''),
    }),
  };
}

const PROFILES: Record<EndpointName, () => ProviderProfile> = {
  stripe: () => stripeProfile(),
  'standard-webhooks': () => standardWebhooksProfile(),
  svix: () => standardWebhooksProfile({ provider: 'svix' }),
  github: () => githubProfile(),
  payme: () => paymeProfile(),
  click: () => clickProfile(),
  yookassa: () => yookassaProfile(),
};

/** What the test handler does for one receipt key (`provider/externalId`), set by a test before it sends. */
export interface Behaviour {
  /** Keys whose next run throws (an error whose message carries a placeholder e-mail address). */
  readonly failOnce: Set<string>;
  /** Keys whose run waits until the promise settles. */
  readonly gates: Map<string, Promise<void>>;
  /** Keys whose run declines with this code. */
  readonly declines: Map<string, number | string>;
}

/** A running intake on a real backend behind fastify on loopback. */
export interface IntakeWorld {
  readonly backend: BackendName;
  readonly store: Store;
  readonly guard: IdempotencyGuard;
  /** The guard's clock; starts at the real time so fresh signatures are inside every window. */
  readonly clock: ManualClock;
  readonly journal: DeliveryJournal;
  readonly intake: WebhookIntake;
  readonly app: FastifyInstance;
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** Handler runs per receipt key (`provider/externalId`, or `provider/<type>` for calls without a key). */
  readonly runs: Map<string, number>;
  /** Every event a handler ran for, in order. */
  readonly handled: ProviderEvent[];
  readonly behaviour: Behaviour;
  /** Replaces one endpoint's scheme until `restoreSchemes()`. */
  useScheme(endpoint: EndpointName, scheme: SignatureScheme): void;
  restoreSchemes(): void;
  close(): Promise<void>;
}

/** Extra wiring for observe tests. */
export interface WorldOptions {
  readonly maxBodyBytes?: number;
  /** Called with the app before it listens (e.g. to add `GET /metrics`). */
  readonly extendApp?: (app: FastifyInstance) => void;
}

const runKey = (event: ProviderEvent): string => event.key?.toString() ?? `${event.provider}/${event.eventType}`;

function resultFor(event: ProviderEvent, run: number): unknown {
  if (event.provider === 'payme') return { transaction: String(run), state: 1, run };
  if (event.provider === 'click') {
    return event.eventType === 'prepare' ? { merchant_prepare_id: run } : { merchant_confirm_id: run };
  }
  return { received: true, run };
}

/** Starts the test intake on `backend`: fresh namespace, journal in the same database, fastify on loopback. */
export async function startIntakeWorld(backendName: BackendName, options: WorldOptions = {}): Promise<IntakeWorld> {
  const backend: TestBackend = await (await backendFactories[backendName]())();
  const store = await backend.open();
  const clock = new ManualClock(Date.now());
  const guard = new IdempotencyGuard(store, { clock, staleAfterMs: 60_000 });
  const journal: DeliveryJournal =
    'db' in store
      ? new SqlDeliveryJournal(store as unknown as SqlDeliveryJournalHolder, { clock })
      : new MemoryDeliveryJournal({ clock });
  const runs = new Map<string, number>();
  const handled: ProviderEvent[] = [];
  const behaviour: Behaviour = { failOnce: new Set(), gates: new Map(), declines: new Map() };
  let counter = 0;
  const active = defaultSchemes();
  const endpoints: Record<string, WebhookEndpoint> = {};
  for (const name of Object.keys(PROFILES) as EndpointName[]) {
    endpoints[name] = {
      profile: PROFILES[name](),
      scheme: { name, verify: (input) => active[name].verify(input) },
      handler: async (event) => {
        const key = runKey(event);
        runs.set(key, (runs.get(key) ?? 0) + 1);
        handled.push(event);
        const gate = behaviour.gates.get(key);
        if (gate) await gate;
        if (behaviour.failOnce.delete(key)) throw new Error('handler exploded for person@example.com');
        const decline = behaviour.declines.get(key);
        if (decline !== undefined) throw new WebhookDecline(decline, 'declined by the test handler');
        counter += 1;
        return resultFor(event, counter);
      },
    };
  }
  // These worlds send many refusals from one address on purpose; the refusal limit has its own test.
  const intake = createWebhookIntake({
    guard,
    journal,
    endpoints,
    maxBodyBytes: options.maxBodyBytes,
    refusalLimit: false,
  });
  const app = Fastify();
  await app.register(fastifyWebhooks(intake));
  options.extendApp?.(app);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  return {
    backend: backendName,
    store,
    guard,
    clock,
    journal,
    intake,
    app,
    url: `http://127.0.0.1:${port}`,
    runs,
    handled,
    behaviour,
    useScheme: (name, scheme) => {
      active[name] = scheme;
    },
    restoreSchemes: () => Object.assign(active, defaultSchemes()),
    close: async () => {
      await app.close();
      await backend.cleanup();
    },
  };
}

type SqlDeliveryJournalHolder = ConstructorParameters<typeof SqlDeliveryJournal>[0];

/** A response read in full. */
export interface Reply {
  readonly status: number;
  readonly headers: Headers;
  readonly bytes: Uint8Array;
  text(): string;
  json(): unknown;
}

/** POSTs `body` to `url` with `headers` and reads the whole response. */
export async function send(
  url: string,
  body: Uint8Array | string,
  headers: Record<string, string> = {},
): Promise<Reply> {
  const response = await fetch(url, { method: 'POST', body, headers });
  const bytes = new Uint8Array(await response.arrayBuffer());
  return {
    status: response.status,
    headers: response.headers,
    bytes,
    text: () => new TextDecoder().decode(bytes),
    json: () => JSON.parse(new TextDecoder().decode(bytes)) as unknown,
  };
}
