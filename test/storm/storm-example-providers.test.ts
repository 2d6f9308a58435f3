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
// after /confirm ignored) fails Uzum 9. An adapter without a provider
// skips every scenario of its storm.

const example = join(import.meta.dirname, '../../examples/storm-express-drizzle');

interface ProviderRun {
  readonly code: number;
  readonly text: string;
  readonly results: readonly { id: number; verdict: string; reasons: string[] }[];
}

/**
 * Runs the `provider`'s storm on the example app with its own schema; resolves with the exit status, output and
 * report.
 */
async function stormOnExample(
  provider: 'payme' | 'click' | 'uzum',
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

describe('examples/storm-express-drizzle under payonce storm --adapter --provider payme|click --start', () => {
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

  it('fails Click 1 and 9 when the shop marks an order paid at Prepare', async () => {
    const broken = 'STORM_EXAMPLE_BROKEN=click-paid-on-prepare';
    const run = await stormOnExample('click', dir, await freshSchema(), broken, ['--only', '1,5,9']);
    expect(run.code, run.text).toBe(1);
    expect(verdicts(run), run.text).toEqual({ 1: 'fail', 5: 'pass', 9: 'fail' });
    expect(run.results.find((r) => r.id === 9)?.reasons.join('\n')).toMatch(
      /shows 1 paid transition\(s\) and 1 fulfilment\(s\) but Click never completed a payment for it/,
    );
    expect(run.text).toMatch(/Click scenario\(s\) failed: 1, 9/);
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
});

describe('payonce storm --adapter --provider NAME with an adapter that declares no such endpoint', () => {
  const adapters = join(import.meta.dirname, 'adapters');

  it.each([
    ['payme', 'Payme', /skip 1: skipped: the app adapter healthz app declares no Payme endpoint/],
    ['click', 'Click', /skip 1: skipped: the app adapter healthz app declares no Click endpoints/],
    ['uzum', 'Uzum', /skip 1: skipped: the app adapter healthz app declares no Uzum endpoint/],
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

  it.each([
    [
      '--provider telegram',
      ['--provider', 'telegram', '--url', 'http://127.0.0.1:9'],
      /--provider telegram does not take an adapter yet/,
    ],
    ['--target', ['--provider', 'payme', '--target', 'http://127.0.0.1:9'], /leave out --target/],
  ])('exits 2 for --adapter with %s', async (_what, extra, message) => {
    const lines: string[] = [];
    const io = { out: (line: string) => lines.push(line), err: (line: string) => lines.push(line) };
    expect(await runCli(['storm', '--adapter', join(adapters, 'healthz-app.adapter.mjs'), ...extra], io)).toBe(2);
    expect(lines.join('\n')).toMatch(message);
  });
});
