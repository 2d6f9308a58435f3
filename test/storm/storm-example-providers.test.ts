import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../packages/cli/src/run-cli.js';
import { createPostgresNamespace, type PostgresNamespace } from '../contract/backends/postgres.js';

// Issue 37: the provider storms against the user's app. examples/storm-express-drizzle has a Payme Merchant API
// (`POST /payme`), a Click SHOP API (`POST /click/prepare`, `/click/complete`) and an Uzum Bank Merchant API
// (`POST /uzum/*`), payonce's engines with the shop's rows in the call's transaction; `payonce storm --adapter …
// --provider payme|click|uzum --start …` starts it with the provider's credentials in its environment
// (PAYONCE_STORM_PAYME_KEY, PAYONCE_STORM_CLICK_*, PAYONCE_STORM_UZUM_*), plays the provider against the adapter's `providers` endpoints and judges the orders through the
// adapter: every scenario passes but the job re-run (no jobs in the shop's API: skipped with its reason). The broken
// variants fail by scenario: STORM_EXAMPLE_BROKEN=payme-no-refund (Payme's refund ignored) fails Payme 10;
// click-paid-on-prepare (the order paid and shipped at Prepare) fails Click 1 and 9; uzum-no-refund (a reverse
// after /confirm ignored) fails Uzum 9. The shop's Telegram Stars bot (`POST /webhooks/telegram`, payonce's
// `payonce/telegram` engine through the intake) passes every Telegram scenario it can express (the job re-run is
// skipped with its reason); telegram-no-receipt (the order shipped on every delivery of an applied
// successful_payment) fails Telegram 1 and 4. The broken Click and Telegram runs also write --html and --junit: the
// failing scenario's order shows its timeline in the HTML, and the JUnit XML has a <failure> for it. An adapter
// without a provider skips every scenario of its storm.

const example = join(import.meta.dirname, '../../examples/storm-express-drizzle');

interface ProviderRun {
  readonly code: number;
  readonly text: string;
  readonly results: readonly { id: number; verdict: string; reasons: string[]; orders: Record<string, unknown>[] }[];
}

/**
 * Runs the `provider`'s storm on the example app with its own schema; resolves with the exit status, output and
 * report.
 */
async function stormOnExample(
  provider: 'payme' | 'click' | 'uzum' | 'telegram',
  dir: string,
  ns: PostgresNamespace,
  env: string,
  extra: string[] = [],
) {
  const lines: string[] = [];
  const io = { out: (line: string) => lines.push(line), err: (line: string) => lines.push(line) };
  const report = join(dir, `${provider}-${env === '' ? 'good' : 'broken'}.json`);
  const start = `${env} DATABASE_URL='${ns.url}' node --import tsx ${JSON.stringify(join(example, 'src/server.ts'))}`;
  const args = ['storm', '--adapter', join(example, 'storm.adapter.ts'), '--provider', provider, '--start', start];
  const code = await runCli([...args, ...extra, '--report', report], io);
  const json = JSON.parse(await readFile(report, 'utf8')) as { results: ProviderRun['results'] };
  return { code, text: lines.join('\n'), results: json.results } satisfies ProviderRun;
}

const verdicts = (run: ProviderRun) => Object.fromEntries(run.results.map((r) => [r.id, r.verdict]));

/** The `<details class="scenario">` section of scenario `id` in an HTML report (up to the next scenario's). */
function scenarioSection(html: string, id: number): string {
  const start = html.indexOf(`id="run1-s${id}"`);
  const end = html.indexOf('<details class="scenario', start + 1);
  return start < 0 ? '' : html.slice(start, end < 0 ? undefined : end);
}

/** The timeline of order `orderId` in a scenario's HTML section, from its `<details>` to its end. */
function orderTimeline(section: string, orderId: string): string {
  const order = section.slice(section.indexOf(`data-order="${orderId}"`));
  return order.slice(0, order.indexOf('</details>'));
}

/** The `<testcase>` of scenario `id` (`"<id>. name"`) in a JUnit report, with its body. */
function testcaseOf(xml: string, id: number): string {
  const pattern = new RegExp(`<testcase [^>]*name="${id}\\. [^"]*"[^>]*?(/>|>[\\s\\S]*?</testcase>)`);
  return xml.match(pattern)?.[0] ?? '';
}

describe('examples/storm-express-drizzle under payonce storm --adapter --provider payme|click|uzum|telegram', () => {
  let dir: string;
  const namespaces: PostgresNamespace[] = [];
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'payonce-storm-payme-example-'));
  });
  afterAll(async () => {
    await Promise.all(namespaces.map((ns) => ns.drop()));
    await rm(dir, { recursive: true, force: true });
  });
  const freshSchema = async () => {
    const ns = await createPostgresNamespace();
    namespaces.push(ns);
    return ns;
  };

  it('passes every Payme scenario; the job re-run is skipped with its reason', async () => {
    const run = await stormOnExample('payme', dir, await freshSchema(), '');
    expect(run.code, run.text).toBe(0);
    const all = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [i + 1, i + 1 === 11 ? 'skip' : 'pass']));
    expect(verdicts(run), run.text).toEqual(all);
    expect(run.results.find((r) => r.id === 11)?.reasons).toEqual([
      expect.stringMatching(/lacks jobs and rerunFulfilment/),
    ]);
    expect(run.text).toMatch(/app: stopped \(pid \d+\)/);
  }, 240_000);

  it('fails scenario 10 when the shop ignores Payme’s refund', async () => {
    const run = await stormOnExample('payme', dir, await freshSchema(), 'STORM_EXAMPLE_BROKEN=payme-no-refund', [
      '--only',
      '1,4,10',
      '--timeout-ms',
      '10000', // scenario 10 waits for a refund the shop never records: until this deadline
    ]);
    expect(run.code, run.text).toBe(1);
    expect(verdicts(run), run.text).toEqual({ 1: 'pass', 4: 'pass', 10: 'fail' });
    expect(run.results.find((r) => r.id === 10)?.reasons.join('\n')).toMatch(
      /Payme refunded 1 time\(s\) but the order shows 0 refund\(s\)/,
    );
    expect(run.text).toMatch(/Payme scenario\(s\) failed: 10/);
  }, 240_000);

  it('passes every Click scenario; the job re-run is skipped with its reason', async () => {
    const run = await stormOnExample('click', dir, await freshSchema(), '');
    expect(run.code, run.text).toBe(0);
    const all = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [i + 1, i + 1 === 10 ? 'skip' : 'pass']));
    expect(verdicts(run), run.text).toEqual(all);
    expect(run.results.find((r) => r.id === 10)?.reasons).toEqual([
      expect.stringMatching(/lacks jobs and rerunFulfilment/),
    ]);
  }, 240_000);

  it('fails Click 1 and 9 when the shop marks an order paid at Prepare; the HTML and JUnit reports show it', async () => {
    const broken = 'STORM_EXAMPLE_BROKEN=click-paid-on-prepare';
    const [html, junit] = [join(dir, 'click-broken.html'), join(dir, 'click-broken.xml')];
    const extra = ['--only', '1,5,9', '--html', html, '--junit', junit];
    const run = await stormOnExample('click', dir, await freshSchema(), broken, extra);
    expect(run.code, run.text).toBe(1);
    expect(verdicts(run), run.text).toEqual({ 1: 'fail', 5: 'pass', 9: 'fail' });
    expect(run.results.find((r) => r.id === 9)?.reasons.join('\n')).toMatch(
      /shows 1 paid transition\(s\) and 1 fulfilment\(s\) but Click never completed a payment for it/,
    );
    expect(run.text).toMatch(/Click scenario\(s\) failed: 1, 9/);
    // Scenario 9's broken order: open, marked broken, its timeline from its creation to the shop's counts.
    const section = scenarioSection(await readFile(html, 'utf8'), 9);
    expect(section).toMatch(/^id="run1-s9" open>/);
    const broke = run.results.find((r) => r.id === 9)?.orders.find((o) => (o.problems as string[]).length > 0);
    const events = orderTimeline(section, String(broke?.merchantTransId));
    expect(events).toMatch(
      /^data-order="[^"]+" open><summary><span class="mono">order [^<]+<\/span> <span class="v-fail">broken/,
    );
    for (const what of ['create order', 'Click Prepare', 'paid transitions 1', 'fulfilments 1']) {
      expect(events).toContain(`<td>${what}`);
    }
    const xml = await readFile(junit, 'utf8');
    expect(testcaseOf(xml, 9)).toMatch(
      /<failure message="[^"]+" type="StormViolation">[^<]*never completed a payment for it/,
    );
    expect(testcaseOf(xml, 5)).toMatch(/\/>$/);
    expect(xml).toMatch(
      /<testsuite name="payonce storm --provider click" tests="3" failures="2" errors="0" skipped="0"/,
    );
  }, 240_000);

  it('passes every Uzum scenario; the job re-run is skipped with its reason', async () => {
    const run = await stormOnExample('uzum', dir, await freshSchema(), '');
    expect(run.code, run.text).toBe(0);
    const all = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [i + 1, i + 1 === 10 ? 'skip' : 'pass']));
    expect(verdicts(run), run.text).toEqual(all);
  }, 240_000);

  it('fails Uzum 9 when the shop ignores a reverse after /confirm', async () => {
    const broken = 'STORM_EXAMPLE_BROKEN=uzum-no-refund';
    const run = await stormOnExample('uzum', dir, await freshSchema(), broken, [
      '--only',
      '1,9',
      '--timeout-ms',
      '10000',
    ]);
    expect(run.code, run.text).toBe(1);
    expect(verdicts(run), run.text).toEqual({ 1: 'pass', 9: 'fail' });
    expect(run.results.find((r) => r.id === 9)?.reasons.join('\n')).toMatch(
      /Uzum Bank refunded 1 time\(s\) but the order shows 0 refund\(s\)/,
    );
  }, 240_000);

  it('passes every Telegram scenario the shop can express; the job re-run is skipped with its reason', async () => {
    const run = await stormOnExample('telegram', dir, await freshSchema(), '');
    expect(run.code, run.text).toBe(0);
    const all = { 1: 'pass', 2: 'pass', 3: 'pass', 4: 'pass', 5: 'pass', 6: 'pass', 7: 'skip', 8: 'pass' };
    expect(verdicts(run), run.text).toEqual(all);
    // The refund asked twice: Telegram's ledger moved the stars back once, the shop shows one refund and holds 0.
    expect(run.results.find((r) => r.id === 6)?.orders[0]).toMatchObject({
      refunds: 1,
      targetRefunds: 1,
      payerStars: 0,
      merchantStars: 0,
    });
    expect(run.results.find((r) => r.id === 7)?.reasons).toEqual([
      expect.stringMatching(/lacks jobs and rerunFulfilment/),
    ]);
    expect(run.text).toMatch(/Telegram sandbox \(Bot API\) http:\/\/127\.0\.0\.1:\d+/);
  }, 240_000);

  it('fails Telegram 1 and 4 when the shop ships on every delivered payment; the HTML and JUnit reports show it', async () => {
    const broken = 'STORM_EXAMPLE_BROKEN=telegram-no-receipt';
    const [html, junit] = [join(dir, 'telegram-broken.html'), join(dir, 'telegram-broken.xml')];
    const extra = ['--only', '1,4,5', '--html', html, '--junit', junit];
    const run = await stormOnExample('telegram', dir, await freshSchema(), broken, extra);
    expect(run.code, run.text).toBe(1);
    expect(verdicts(run), run.text).toEqual({ 1: 'fail', 4: 'fail', 5: 'pass' });
    expect(run.results.find((r) => r.id === 4)?.reasons.join('\n')).toMatch(/the order was fulfilled 3 times/);
    const section = scenarioSection(await readFile(html, 'utf8'), 4);
    const events = orderTimeline(section, String(run.results.find((r) => r.id === 4)?.orders[0]?.orderId));
    expect(events).toMatch(/<span class="v-fail">broken/);
    for (const what of ['create order', 'send invoice', 'customer paid: paid', 'webhook successful_payment']) {
      expect(events).toContain(`<td>${what}`);
    }
    expect(events.match(/<td>webhook successful_payment<\/td><td>200<\/td>/g)).toHaveLength(3);
    expect(events).toMatch(/<td>ledger: payment of \d+ stars<\/td>/);
    expect(events).toContain('<td>fulfilments 3</td>');
    const xml = await readFile(junit, 'utf8');
    expect(testcaseOf(xml, 4)).toMatch(/<failure message="order [^"]*: the order was fulfilled 3 times"/);
    expect(testcaseOf(xml, 5)).toMatch(/\/>$/);
  }, 240_000);
});

describe('payonce storm --adapter --provider NAME with an adapter that declares no such endpoint', () => {
  const adapters = join(import.meta.dirname, 'adapters');

  it.each([
    ['payme', 'Payme', /skip 1: skipped: the app adapter healthz app declares no Payme endpoint/],
    ['click', 'Click', /skip 1: skipped: the app adapter healthz app declares no Click endpoints/],
    ['uzum', 'Uzum', /skip 1: skipped: the app adapter healthz app declares no Uzum endpoint/],
    ['telegram', 'Telegram', /skip 1: skipped: the app adapter healthz app declares no Telegram webhook/],
  ])('%s: skips every scenario with the reason (exit 0); the app got the credentials', async (provider, name, why) => {
    const lines: string[] = [];
    const io = { out: (line: string) => lines.push(line), err: (line: string) => lines.push(line) };
    const app = `node ${JSON.stringify(join(adapters, 'healthz-app.mjs'))}`;
    const args = ['storm', '--adapter', join(adapters, 'healthz-app.adapter.mjs'), '--provider', provider];
    expect(await runCli([...args, '--start', app, '--only', '1,8'], io), lines.join('\n')).toBe(0);
    const text = lines.join('\n');
    expect(text).toMatch(new RegExp(`^PASS: 0/2 ${name} scenarios \\(2 skipped: 1, 8\\)`, 'm'));
    expect(text).toMatch(why);
  });

  it.each([['--target', ['--provider', 'payme', '--target', 'http://127.0.0.1:9'], /leave out --target/]])(
    'exits 2 for --adapter with %s',
    async (_what, extra, message) => {
      const lines: string[] = [];
      const io = { out: (line: string) => lines.push(line), err: (line: string) => lines.push(line) };
      expect(await runCli(['storm', '--adapter', join(adapters, 'healthz-app.adapter.mjs'), ...extra], io)).toBe(2);
      expect(lines.join('\n')).toMatch(message);
    },
  );
});
