import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Kysely, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../packages/cli/src/run-cli.js';
import { InMemoryPaymentProvider } from '../../packages/payonce/src/payments/in-memory-payment-provider.js';
import type { SqlDialectName } from '../../packages/payonce/src/stores/sql/sql-dialect.js';
import { createService } from '../../packages/service/src/create-service.js';
import { PAYMENT_EVENT_TYPES } from '../../packages/service/src/payment-event-of.js';
import { captureLine } from '../../packages/storm/src/replay/capture-line.js';
import { parseCaptures } from '../../packages/storm/src/replay/parse-captures.js';
import { readCaptureFile } from '../../packages/storm/src/replay/read-capture-file.js';
import { replay } from '../../packages/storm/src/replay/replay.js';
import type { ReplayReport } from '../../packages/storm/src/replay/replay-report.js';
import { createMysqlNamespace } from '../contract/backends/mysql.js';
import { createPostgresNamespace } from '../contract/backends/postgres.js';
import { createSqliteNamespace } from '../contract/backends/sqlite.js';
import { sqlDialectsFromEnv } from '../outbox/sql-backends.js';
import {
  acceptedProviderFixtureFiles,
  type FixtureCapture,
  fixtureCaptures,
  NOT_DELIVERIES,
  PAYMENT_OUTCOMES,
  type ServiceEndpoint,
} from './fixture-captures.js';

// The "Real input" bullet of issue 7: every signature vector and payload of the fixture folders the reference
// service accepts (Stripe on /webhooks/stripe; Standard Webhooks and Svix on /webhooks/standard-webhooks) becomes
// a capture file, and `payonce replay` sends it to the running service, each delivery three times, in parallel and
// shuffled. The database then shows: each valid delivery accepted and applied once, each invalid one refused with
// no receipt written; and the replay report says so.

const COPIES = 3;
const PARALLEL = 8;

/**
 * One service configuration: the endpoint, its secret, the pinned clock and the signature tolerance (the vectors'
 * `tolerance_seconds`, else the default) shared by the group's captures.
 */
interface Group {
  readonly name: string;
  readonly endpoint: ServiceEndpoint;
  readonly secret: string;
  readonly nowSeconds: number;
  readonly toleranceSeconds: number | null;
  readonly captures: FixtureCapture[];
}

/**
 * Groups captures by (endpoint, secret, timestamp_now, tolerance_seconds), one service per group. Two accepted captures with one
 * event id but different bodies would be a payload mismatch, not a duplicate, so such a capture opens a new group.
 */
function groupsOf(captures: readonly FixtureCapture[]): Group[] {
  const groups: Group[] = [];
  for (const capture of captures) {
    const conflicts = (g: Group) =>
      capture.record.expect === 'accepted' &&
      g.captures.some(
        (c) => c.record.expect === 'accepted' && c.eventId === capture.eventId && c.record.body !== capture.record.body,
      );
    const found = groups.find(
      (g) =>
        g.endpoint === capture.endpoint &&
        g.secret === capture.secret &&
        g.nowSeconds === capture.nowSeconds &&
        g.toleranceSeconds === capture.toleranceSeconds &&
        !conflicts(g),
    );
    if (found) found.captures.push(capture);
    else {
      const n = groups.filter((g) => g.endpoint === capture.endpoint).length + 1;
      const secret = capture.kind === 'payload' ? 'test' : 'fixture';
      const tolerance = capture.toleranceSeconds === null ? '' : `, tolerance ${capture.toleranceSeconds} s`;
      groups.push({
        name: `${capture.endpoint} #${n} (now ${capture.nowSeconds}${tolerance}, ${secret} secret)`,
        endpoint: capture.endpoint,
        secret: capture.secret,
        nowSeconds: capture.nowSeconds,
        toleranceSeconds: capture.toleranceSeconds,
        captures: [capture],
      });
    }
  }
  return groups;
}

const { captures, filesRead } = fixtureCaptures();
const groups = groupsOf(captures);

/** The receipt namespace (`provider` column) of each endpoint's intake: its profile's provider name. */
const INTAKE_PROVIDER: Record<ServiceEndpoint, string> = { stripe: 'stripe', 'standard-webhooks': 'standard-webhooks' };

interface JournalRow {
  event_key: string | null;
  signature: string;
  decision: string;
  outcome: string;
  response_status: number | string | bigint;
}

/** Query rows with binary columns (MariaDB `VARBINARY` keys come back as Buffers) read as UTF-8 text. */
async function rows<T>(db: Kysely<unknown>, query: ReturnType<typeof sql<T>>): Promise<T[]> {
  return (await query.execute(db)).rows.map(
    (row) =>
      Object.fromEntries(
        Object.entries(row as Record<string, unknown>).map(([k, v]) => [
          k,
          Buffer.isBuffer(v) ? v.toString('utf8') : v,
        ]),
      ) as T,
  );
}

/**
 * Checks the service's database after `copies` deliveries of every capture of `group`:
 * - every delivery has one journal row; refused ones are `rejected`, with the signature verdict the capture says;
 * - per accepted event: exactly one `new` row, every other copy `duplicate` (or `in-progress` while the first
 *   ran), one `completed` intake receipt; a payment event is parked once in the payment journal (no order matches
 *   it) or declined once when it names no payment (`PAYMENT_OUTCOMES`); any other event is acknowledged once;
 * - no receipt at all for any refused delivery.
 */
async function expectExactlyOnce(db: Kysely<unknown>, group: Group, copies: number): Promise<void> {
  const provider = INTAKE_PROVIDER[group.endpoint];
  const journal = await rows<JournalRow>(
    db,
    sql<JournalRow>`select event_key, signature, decision, outcome, response_status from payonce_webhook_deliveries`,
  );
  expect(journal).toHaveLength(group.captures.length * copies);

  const rejected = group.captures.filter((c) => c.record.expect === 'rejected');
  const refusedRows = journal.filter((r) => r.decision === 'rejected');
  expect(refusedRows).toHaveLength(rejected.length * copies);
  for (const row of refusedRows) {
    expect(row.outcome).toBe('rejected');
    expect(Number(row.response_status)).toBeGreaterThanOrEqual(400);
    expect(Number(row.response_status)).toBeLessThan(500);
  }
  // A signature-valid vector whose body is no event is refused after verification (400); the others before it.
  const validSignature = refusedRows.filter((r) => r.signature === 'valid');
  expect(validSignature).toHaveLength(rejected.filter((c) => c.signatureValid).length * copies);
  for (const row of validSignature) expect(Number(row.response_status)).toBe(400);

  const accepted = group.captures.filter((c) => c.record.expect === 'accepted');
  const acceptedIds = [...new Set(accepted.map((c) => c.eventId!))].sort();
  const receipts = await rows<{ provider: string; external_id: string; status: string }>(
    db,
    sql`select provider, external_id, status from payonce_receipts where provider = ${provider}`,
  );
  expect(receipts.map((r) => r.external_id).sort()).toEqual(acceptedIds);
  for (const receipt of receipts) expect(receipt.status).toBe('completed');

  const payments = await rows<{ event_id: string; event_type: string; decision: string }>(
    db,
    sql`select event_id, event_type, decision from payonce_payment_events`,
  );
  for (const id of acceptedIds) {
    const sent = accepted.filter((c) => c.eventId === id).length * copies;
    const forEvent = journal.filter((r) => r.event_key === id);
    expect(forEvent, `journal rows of ${id}`).toHaveLength(sent);
    const first = forEvent.filter((r) => r.decision === 'new');
    expect(first, `new decisions of ${id}`).toHaveLength(1);
    for (const row of forEvent.filter((r) => r.decision !== 'new')) {
      expect(['duplicate', 'in-progress']).toContain(row.decision);
    }
    const recorded = payments.filter((p) => p.event_id === id);
    const capture = accepted.find((c) => c.eventId === id)!;
    const type = JSON.parse(String(capture.record.body)).type as string;
    const payment = Object.hasOwn(PAYMENT_EVENT_TYPES, type) ? PAYMENT_OUTCOMES[capture.record.id] : null;
    expect(payment, `${capture.record.id} (${type}) needs an entry in PAYMENT_OUTCOMES`).not.toBeUndefined();
    expect(first[0]!.outcome, `${id} (${type})`).toBe(payment === 'declined' ? 'declined' : 'completed');
    if (payment === null) {
      // Acknowledged with no business action, and the stored (replayed) answer says why.
      const [stored] = await rows<{ response_body: string }>(
        db,
        sql`select response_body from payonce_receipts where provider = ${provider} and external_id = ${id}`,
      );
      expect(JSON.parse(stored!.response_body), id).toEqual({
        received: true,
        ignored: true,
        reason: typeof type === 'string' && type !== '' ? 'no handler for this event type' : 'no event type',
      });
    }
    expect(recorded, `payment journal rows of ${id} (${type})`).toHaveLength(payment === 'parked' ? 1 : 0);
    for (const row of recorded) expect(row).toMatchObject({ event_type: type, decision: 'parked' });
  }
  expect(payments.every((p) => acceptedIds.includes(p.event_id))).toBe(true);

  // Refused deliveries wrote no receipt, neither under an event id of their own nor anywhere else.
  const all = await rows<{ provider: string; external_id: string }>(
    db,
    sql`select provider, external_id from payonce_receipts`,
  );
  const allowed = new Set([
    ...acceptedIds.map((id) => `${provider}|${id}`),
    ...payments.map((p) => `payments:stripe|${p.event_id}`),
  ]);
  expect(all.map((r) => `${r.provider}|${r.external_id}`).filter((k) => !allowed.has(k))).toEqual([]);
}

/** Per capture, the replay report's verdict and answers must say what the service did. */
function expectReportSays(report: ReplayReport, group: Group, copies: number): void {
  expect(report.ok).toBe(true);
  expect(report.totals).toMatchObject({
    captures: group.captures.length,
    deliveries: group.captures.length * copies,
    serverError: 0,
    failed: 0,
    contradicted: 0,
    matched: group.captures.length,
  });
  for (const capture of group.captures) {
    const row = report.captures.find((c) => c.id === capture.record.id)!;
    expect(row, capture.record.id).toMatchObject({ expect: capture.record.expect, verdict: 'matched' });
    expect(row.statuses).toHaveLength(copies);
    if (capture.record.expect === 'accepted') {
      expect(row.statuses.filter((s) => s === 200).length, row.reason).toBeGreaterThanOrEqual(1);
      expect(
        row.statuses.every((s) => s === 200 || s === 409),
        row.reason,
      ).toBe(true);
    } else if (capture.signatureValid) {
      expect(row.statuses, row.reason).toEqual(Array(copies).fill(400));
      expect(row.problemCodes).toEqual(['MALFORMED_WEBHOOK_PAYLOAD']);
    } else {
      expect(row.problemCodes).toHaveLength(1);
      expect(['WEBHOOK_SIGNATURE_INVALID', 'WEBHOOK_SIGNATURE_MALFORMED']).toContain(row.problemCodes[0]);
    }
  }
}

/** A fresh, empty database of each SQL dialect, as a service `databaseUrl`. */
const namespaceOf: Record<SqlDialectName, () => Promise<{ url: string; drop(): Promise<void> }>> = {
  sqlite: async () => {
    const ns = await createSqliteNamespace();
    return { url: ns.path, drop: ns.drop };
  },
  postgres: createPostgresNamespace,
  mysql: createMysqlNamespace,
};

/**
 * Every group on SQLite; on PostgreSQL and MariaDB (selected by `PAYONCE_BACKENDS`, all by default) the groups
 * holding accepted deliveries, where parallel copies race for one receipt.
 */
const runs = sqlDialectsFromEnv().flatMap((dialect) =>
  groups
    .filter((g) => dialect === 'sqlite' || g.captures.some((c) => c.record.expect === 'accepted'))
    .map((g) => [dialect, g.name, g] as const),
);

describe('real input: provider fixtures replayed against the reference service', () => {
  it('turns every signature vector and payload of the accepted providers into captures', () => {
    for (const file of acceptedProviderFixtureFiles()) {
      expect(filesRead.includes(file) || NOT_DELIVERIES[file] !== undefined, file).toBe(true);
    }
    const vectors = captures.filter((c) => c.kind === 'vector');
    expect(vectors.length).toBeGreaterThanOrEqual(38);
    expect(new Set(captures.map((c) => c.record.id)).size).toBe(captures.length);
    for (const endpoint of ['stripe', 'standard-webhooks'] as const) {
      const mine = captures.filter((c) => c.endpoint === endpoint);
      expect(mine.filter((c) => c.record.expect === 'accepted').length, endpoint).toBeGreaterThanOrEqual(3);
      expect(mine.filter((c) => c.signatureValid && c.kind === 'vector').length, endpoint).toBeGreaterThanOrEqual(2);
      expect(mine.filter((c) => !c.signatureValid).length, endpoint).toBeGreaterThanOrEqual(3);
    }
    expect(captures.filter((c) => c.fixture.startsWith('svix/')).length).toBe(6);
  });

  it('expects every signature-valid vector with a JSON body to be accepted; only bodies that are not JSON refused', () => {
    const valid = captures.filter((c) => c.kind === 'vector' && c.signatureValid);
    expect(valid.length).toBeGreaterThanOrEqual(10);
    for (const c of valid) {
      let json = true;
      try {
        JSON.parse(String(c.record.body));
      } catch {
        json = false;
      }
      expect(c.record.expect, `${c.record.id}: ${c.record.note}`).toBe(json ? 'accepted' : 'rejected');
    }
    // The signature test bodies carry no event type: acknowledged, not refused.
    const noType = valid.filter((c) => c.record.expect === 'accepted' && !String(c.record.body).includes('"type"'));
    expect(new Set(noType.map((c) => c.endpoint))).toEqual(new Set(['stripe', 'standard-webhooks']));
  });

  it('keeps every fixture body and header verbatim through the capture file', () => {
    const parsed = parseCaptures(captures.map((c) => captureLine(c.record)).join('\n'), 'fixtures');
    expect(parsed).toHaveLength(captures.length);
    parsed.forEach((capture, i) => {
      const { record } = captures[i]!;
      expect(Buffer.from(capture.body).equals(Buffer.from(String(record.body), 'utf8')), record.id).toBe(true);
      expect(capture.headers).toEqual(record.headers);
      expect(capture).toMatchObject({ id: record.id, path: record.path, method: 'POST', expect: record.expect });
    });
  });

  it.each(runs)(
    '%s, %s: payonce replay ×3 in parallel, shuffled, then replay() ×3 again: once in effect',
    async (dialect, _name, group) => {
      const ns = await namespaceOf[dialect]();
      const dir = await mkdtemp(path.join(tmpdir(), 'payonce-replay-'));
      const service = await createService({
        databaseUrl: ns.url,
        port: 0,
        worker: false,
        logLevel: 'silent',
        clock: { now: () => group.nowSeconds * 1000 },
        ...(group.toleranceSeconds === null ? {} : { webhookToleranceSec: group.toleranceSeconds }),
        provider: new InMemoryPaymentProvider({ name: 'stripe' }),
        ...(group.endpoint === 'stripe'
          ? { stripeWebhookSecrets: [group.secret] }
          : { standardWebhooksSecrets: [group.secret] }),
      });
      try {
        const file = path.join(dir, 'captures.jsonl');
        await writeFile(file, `${group.captures.map((c) => captureLine(c.record)).join('\n')}\n`);
        const db = service.context.store.db as Kysely<unknown>;

        const out: string[] = [];
        const reportFile = path.join(dir, 'report.json');
        const args = ['replay', file, '--target', service.url, '--copies', String(COPIES), '--parallel'];
        const code = await runCli(
          [...args, String(PARALLEL), '--shuffle', '--seed', group.name, '--report', reportFile],
          {
            out: (line) => out.push(line),
            err: (line) => out.push(line),
          },
        );
        expect(code, out.join('\n')).toBe(0);
        expect(out.at(-2)).toMatch(/^PASS: /);
        const first = JSON.parse(await readFile(reportFile, 'utf8')) as ReplayReport;
        expect(first).toMatchObject({ copies: COPIES, parallel: PARALLEL, shuffled: true, seed: group.name });
        expectReportSays(first, group, COPIES);
        await expectExactlyOnce(db, group, COPIES);

        const again = await replay({
          target: service.url,
          captures: await readCaptureFile(file),
          copies: COPIES,
          parallel: PARALLEL,
          shuffle: true,
          seed: `${group.name} again`,
        });
        expectReportSays(again, group, COPIES);
        await expectExactlyOnce(db, group, COPIES * 2);
        // Every later copy of an accepted delivery got the stored answer, byte for byte.
        for (const capture of group.captures.filter((c) => c.record.expect === 'accepted')) {
          const answers = [...first.deliveries, ...again.deliveries].filter(
            (d) => d.captureId === capture.record.id && d.status === 200,
          );
          expect(new Set(answers.map((d) => d.bodySha256)).size, capture.record.id).toBe(1);
          expect(again.captures.find((c) => c.id === capture.record.id)!.statuses).toEqual(Array(COPIES).fill(200));
        }
      } finally {
        await service.close();
        await ns.drop();
        await rm(dir, { recursive: true, force: true });
      }
    },
  );
});
