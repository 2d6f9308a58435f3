import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidOption } from '../../packages/payonce/src/core/errors.js';
import { captureLine } from '../../packages/storm/src/replay/capture-line.js';
import { parseCaptures } from '../../packages/storm/src/replay/parse-captures.js';
import { replay } from '../../packages/storm/src/replay/replay.js';
import { type LocalTarget, startLocalTarget } from './local-target.js';

let target: LocalTarget;
beforeAll(async () => {
  target = await startLocalTarget(25);
});
afterAll(async () => {
  await target.close();
});

const fresh = () => target.received.splice(0);

function captures(...lines: Parameters<typeof captureLine>[0][]) {
  return parseCaptures(lines.map(captureLine).join('\n'));
}

describe('replay against a local target', () => {
  it('sends the exact body bytes and captured headers (connection-level ones left out), method and path', async () => {
    fresh();
    const text = '{\n  "id": "evt_1",\r\n  "name": "Zoë ☃"\n}';
    const bytes = Uint8Array.from([0xff, 0xfe, 0x00, 0x41, 0x0d, 0x0a]);
    const list = captures(
      {
        id: 'text',
        path: '/webhooks/ok?x=1',
        headers: {
          'Stripe-Signature': 't=1,v1=aa',
          'Content-Type': 'application/json; charset=utf-8',
          Host: 'provider-target.example',
          'Content-Length': '999',
          Connection: 'close',
          'Transfer-Encoding': 'chunked',
        },
        body: text,
      },
      { id: 'bytes', path: '/webhooks/ok', method: 'PUT', headers: { 'X-Raw': ' spaced\tvalue ' }, body: bytes },
    );
    const report = await replay({ target: `${target.url}/prefix/`, captures: list });
    const [first, second] = fresh();
    expect(first!.method).toBe('POST');
    expect(first!.url).toBe('/prefix/webhooks/ok?x=1');
    expect(first!.body.equals(Buffer.from(text, 'utf8'))).toBe(true);
    expect(first!.headers['stripe-signature']).toBe('t=1,v1=aa');
    expect(first!.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(first!.headers.host).toBe(new URL(target.url).host);
    expect(first!.headers['content-length']).toBe(String(Buffer.byteLength(text)));
    expect(first!.headers['transfer-encoding']).toBeUndefined();
    expect(second!.method).toBe('PUT');
    expect(Uint8Array.from(second!.body)).toEqual(bytes);
    expect(second!.headers['x-raw']).toBe('spaced\tvalue');
    expect(report.captures.map((c) => [c.id, c.statuses])).toEqual([
      ['text', [200]],
      ['bytes', [200]],
    ]);
  });

  it('sends each capture `copies` times, in file order with copies in a row, and reports per capture', async () => {
    fresh();
    const report = await replay({
      target: target.url,
      copies: 3,
      captures: captures(
        { id: 'a', path: '/ok', headers: { 'x-n': 'a' }, body: 'a', expect: 'accepted' },
        { id: 'b', path: '/refuse', headers: { 'x-n': 'b' }, body: 'b', expect: 'rejected', note: 'forged' },
        { id: 'c', path: '/fail', headers: { 'x-n': 'c' }, body: 'c' },
      ),
    });
    expect(fresh().map((r) => r.headers['x-n'])).toEqual(['a', 'a', 'a', 'b', 'b', 'b', 'c', 'c', 'c']);
    expect(report.deliveries.map((d) => `${d.captureId}${d.copy}`)).toEqual([
      'a1',
      'a2',
      'a3',
      'b1',
      'b2',
      'b3',
      'c1',
      'c2',
      'c3',
    ]);
    const [a, b, c] = report.captures;
    expect(a).toMatchObject({ statuses: [200, 200, 200], verdict: 'matched', distinctAnswers: 1, line: 1 });
    expect(a!.counts).toEqual({ success: 3, clientError: 0, serverError: 0, other: 0, failed: 0 });
    expect(b).toMatchObject({ statuses: [401, 401, 401], verdict: 'matched', note: 'forged' });
    expect(b!.problemCodes).toEqual(['WEBHOOK_SIGNATURE_INVALID']);
    expect(c).toMatchObject({ statuses: [500, 500, 500], verdict: 'unchecked', reason: '500 ×3' });
    expect(report.totals).toEqual({
      captures: 3,
      deliveries: 9,
      success: 3,
      clientError: 3,
      serverError: 3,
      other: 0,
      failed: 0,
      replayed: 0,
      matched: 2,
      contradicted: 0,
      unchecked: 1,
    });
    expect(report).toMatchObject({ ok: true, copies: 3, parallel: 1, shuffled: false, seed: null });
  });

  it('reports a contradiction without throwing, and ok is false', async () => {
    const report = await replay({
      target: target.url,
      captures: captures({ id: 'x', path: '/refuse', headers: {}, body: '', expect: 'accepted' }),
    });
    expect(report.ok).toBe(false);
    expect(report.captures[0]).toMatchObject({ verdict: 'contradicted', reason: 'expected accepted, got 401 ×1' });
    expect(report.totals.contradicted).toBe(1);
  });

  it('keeps at most `parallel` requests in flight and uses them', async () => {
    fresh();
    const before = target.maxInFlight();
    expect(before).toBe(1);
    const list = captures(
      ...Array.from({ length: 6 }, (_, i) => ({ id: `p${i}`, path: '/ok', headers: {}, body: `${i}` })),
    );
    const report = await replay({ target: target.url, captures: list, copies: 2, parallel: 4 });
    expect(fresh()).toHaveLength(12);
    expect(target.maxInFlight()).toBe(4);
    expect(report.totals.success).toBe(12);
  });

  it('shuffles by seed: the order is the report order, repeatable with the seed, and another seed differs', async () => {
    fresh();
    const list = captures(
      ...Array.from({ length: 8 }, (_, i) => ({ id: `s${i}`, path: '/quick', headers: { 'x-n': `s${i}` }, body: '' })),
    );
    const run = async (seed?: string) => {
      const report = await replay({
        target: target.url,
        captures: list,
        copies: 2,
        shuffle: true,
        ...(seed ? { seed } : {}),
      });
      const arrived = fresh().map((r) => r.headers['x-n']);
      expect(arrived).toEqual(report.deliveries.map((d) => d.captureId));
      return { report, arrived };
    };
    const one = await run('seed-a');
    const again = await run('seed-a');
    const other = await run('seed-b');
    const unseeded = await run();
    expect(one.report.seed).toBe('seed-a');
    expect(again.arrived).toEqual(one.arrived);
    expect(other.arrived).not.toEqual(one.arrived);
    expect(one.arrived).not.toEqual(list.flatMap((c) => [c.id, c.id]));
    expect([...one.arrived].sort()).toEqual(list.flatMap((c) => [c.id, c.id]).sort());
    expect(unseeded.report.seed).toMatch(/^[0-9a-f]{8}$/);
    expect((await run(unseeded.report.seed!)).arrived).toEqual(unseeded.arrived);
  });

  it('counts Idempotent-Replayed answers and 409s of parallel copies, and judges them as accepted', async () => {
    const report = await replay({
      target: target.url,
      captures: captures({
        id: 'd',
        path: '/dedupe',
        headers: { 'x-event-id': 'evt_d' },
        body: '{}',
        expect: 'accepted',
      }),
      copies: 6,
      parallel: 3,
    });
    const [d] = report.captures;
    expect(d!.statuses.filter((s) => s === 409).length).toBeGreaterThanOrEqual(1);
    expect(d!.counts.success + d!.counts.clientError).toBe(6);
    expect(d!.replayed).toBe(d!.counts.success - 1);
    expect(d!.distinctAnswers).toBe(2);
    expect(d!.verdict).toBe('matched');
    expect(report.totals.replayed).toBe(d!.replayed);
  });

  it('reports a timeout per delivery and goes on', async () => {
    const report = await replay({
      target: target.url,
      timeoutMs: 150,
      captures: captures(
        { id: 'slow', path: '/slow', headers: {}, body: '', expect: 'accepted' },
        { id: 'ok', path: '/ok', headers: {}, body: '', expect: 'accepted' },
      ),
    });
    expect(report.deliveries[0]).toMatchObject({ status: null, error: 'timeout after 150 ms', bodySha256: null });
    expect(report.captures[0]!.verdict).toBe('contradicted');
    expect(report.captures[1]!.verdict).toBe('matched');
    expect(report.totals.failed).toBe(1);
  });

  it('reports a refused connection per delivery without throwing', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    await new Promise((resolve) => server.close(resolve));
    const report = await replay({
      target: `http://127.0.0.1:${port}`,
      copies: 2,
      captures: captures({ id: 'gone', path: '/ok', headers: {}, body: '', expect: 'rejected' }),
    });
    expect(report.deliveries).toHaveLength(2);
    for (const d of report.deliveries) {
      expect(d.status).toBeNull();
      expect(d.error).toMatch(/ECONNREFUSED/);
    }
    expect(report.captures[0]).toMatchObject({ verdict: 'contradicted', counts: { failed: 2 } });
  });

  it.each([
    [{ target: 'ftp://127.0.0.1/' }, 'target'],
    [{ target: 'http://user:pw@127.0.0.1/' }, 'target'],
    [{ target: 'http://127.0.0.1/?q=1' }, 'target'],
    [{ target: 'not a url' }, 'target'],
    [{ copies: 0 }, 'copies'],
    [{ copies: 1.5 }, 'copies'],
    [{ parallel: 257 }, 'parallel'],
    [{ timeoutMs: 0 }, 'timeoutMs'],
    [{ seed: '' }, 'seed'],
    [{ seed: 'no-shuffle' }, 'seed'],
    [{ captures: [] }, 'captures'],
  ])('refuses %j before sending anything (InvalidOption %s)', async (override, option) => {
    fresh();
    const base = { target: target.url, captures: captures({ path: '/ok', headers: {}, body: '' }) };
    const error = await replay({ ...base, ...override }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidOption);
    expect((error as InvalidOption).option).toBe(option);
    expect(fresh()).toEqual([]);
  });
});
