import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../packages/cli/src/cli-io.js';
import { runCli } from '../../packages/cli/src/run-cli.js';
import { ACCOUNT, AMOUNT, code, KEY } from '../providers/payme/payme-fixtures.js';
import type { PaymeBench } from '../providers/payme/payme-harness.js';
import { paymeBenchOn, recode, type ServedApp, serveMerchant } from './payme-merchant-app.js';

const capture = (): CliIo & { lines: string[] } => {
  const lines: string[] = [];
  return { lines, out: (line) => lines.push(line), err: (line) => lines.push(line) };
};

/** `payonce sandbox payme`: exit 0 when the battery passes, 1 when a check fails, 2 for usage errors. */
describe('payonce sandbox payme', () => {
  let bench: PaymeBench;
  let drop: () => Promise<void>;
  let good: ServedApp;
  let bad: ServedApp;
  const field = Object.keys(ACCOUNT)[0] as string;
  /** Two fresh orders, as `--orders VALUE:AMOUNT,VALUE:AMOUNT`. */
  const orders = () =>
    [bench.addOrder(AMOUNT), bench.addOrder(AMOUNT)].map((o) => `${o.account[field]}:${AMOUNT}`).join(',');

  beforeAll(async () => {
    ({ bench, drop } = await paymeBenchOn());
    good = await serveMerchant(bench.merchant);
    bad = await serveMerchant(bench.merchant, recode(code('-31008'), code('-31007')));
  });
  afterAll(async () => {
    await good?.close();
    await bad?.close();
    await drop?.();
  });

  it('--check exits 0 and prints a table of passes against a conforming endpoint', async () => {
    const io = capture();
    const args = [
      'sandbox',
      'payme',
      '--check',
      good.url,
      '--key',
      KEY,
      '--account-field',
      field,
      '--orders',
      orders(),
    ];
    expect(await runCli(args, io)).toBe(0);
    expect(io.lines.join('\n')).toMatch(/all 24 checks passed/);
    expect(io.lines.join('\n')).not.toContain(KEY);
  });

  it('--check exits 1 and names the failed checks against an endpoint answering -31007 for -31008', async () => {
    const io = capture();
    const args = ['sandbox', 'payme', '--check', bad.url, '--key', KEY, '--account-field', field, '--orders', orders()];
    expect(await runCli(args, io)).toBe(1);
    const text = io.lines.join('\n');
    expect(text).toMatch(/FAIL +CreateTransaction after cancel, same id/);
    expect(text).toMatch(/checks failed/);
  });

  it('--merchant-url pays orders with faults and prints the ledger', async () => {
    const io = capture();
    const args = ['sandbox', 'payme', '--merchant-url', good.url, '--key', KEY, '--account-field', field];
    expect(await runCli([...args, '--orders', orders(), '--count', '2', '--inject', 'lost-answer,duplicate'], io)).toBe(
      0,
    );
    expect(io.lines.filter((l) => l.includes(' performed, state 2'))).toHaveLength(2);
    expect(io.lines.join('\n')).toMatch(new RegExp(`moved ${2 * AMOUNT} tiyin`));
  });

  it('takes --check with --merchant-url and --pay URL too; a battery stopped by a setup mistake is one line, exit 1', async () => {
    let io = capture();
    const base = ['sandbox', 'payme', '--key', KEY, '--account-field', field];
    expect(await runCli([...base, '--check', '--merchant-url', good.url, '--orders', orders()], io)).toBe(0);
    expect(io.lines.join('\n')).toMatch(/all 24 checks passed/);
    io = capture();
    expect(await runCli([...base, '--pay', good.url, '--orders', orders()], io)).toBe(0);
    expect(io.lines.filter((l) => l.includes(' performed, state 2'))).toHaveLength(1);
    io = capture();
    const wrongField = ['sandbox', 'payme', '--key', KEY, '--account-field', 'order', '--check', good.url];
    expect(await runCli([...wrongField, '--orders', orders()], io)).toBe(1);
    expect(io.lines).toEqual([
      `payonce sandbox: the endpoint expects account field ${field}, not order (--account-field ${field})`,
    ]);
  });

  it('--merchant-url exits 1 when the endpoint never answers', async () => {
    const io = capture();
    const args = ['sandbox', 'payme', '--merchant-url', 'http://127.0.0.1:1/payme', '--key', KEY, '--orders', 'a:100'];
    expect(await runCli(args, io)).toBe(1);
    expect(io.lines.join('\n')).toMatch(/unknown, state 0[\s\S]*left without an answer/);
  });

  it.each([
    ['neither --check nor --merchant-url', ['--key', 'k', '--orders', 'a:1'], /exactly one of --check/],
    [
      'both --check and --pay',
      ['--check', '--pay', 'http://127.0.0.1:1/payme', '--key', 'k', '--orders', 'a:1'],
      /exactly one of --check and --pay/,
    ],
    [
      'two endpoints',
      ['--check', 'http://127.0.0.1:1/a', '--merchant-url', 'http://127.0.0.1:1/b', '--key', 'k', '--orders', 'a:1'],
      /--check http:\/\/127\.0\.0\.1:1\/a and --merchant-url http:\/\/127\.0\.0\.1:1\/b name two endpoints/,
    ],
    ['no key', ['--check', 'http://127.0.0.1:1/payme', '--orders', 'a:1,b:1'], /--key/],
    ['bad orders', ['--check', 'http://127.0.0.1:1/payme', '--key', 'k', '--orders', 'a'], /VALUE:AMOUNT/],
    [
      'one order for the battery',
      ['--check', 'http://127.0.0.1:1/payme', '--key', 'k', '--orders', 'a:1'],
      /--orders: the acceptance battery needs at least 2 fresh payable orders/,
    ],
    [
      'an unknown fault',
      ['--merchant-url', 'http://127.0.0.1:1/payme', '--key', 'k', '--orders', 'a:1', '--inject', 'boom'],
      /unknown fault/,
    ],
  ])('exits 2 for %s', async (_what, args, message) => {
    const saved = process.env.PAYME_KEY;
    delete process.env.PAYME_KEY;
    try {
      const io = capture();
      expect(await runCli(['sandbox', 'payme', ...args], io)).toBe(2);
      expect(io.lines.join('\n')).toMatch(message);
    } finally {
      if (saved !== undefined) process.env.PAYME_KEY = saved;
    }
  });
});
