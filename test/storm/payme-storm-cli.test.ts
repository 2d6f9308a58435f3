import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../packages/cli/src/cli-io.js';
import { runCli } from '../../packages/cli/src/run-cli.js';
import type { PaymeStormReport } from '../../packages/storm/src/payme/index.js';
import { KEY } from '../providers/payme/payme-fixtures.js';
import { type PaymeStormApp, startPaymeStormApp } from './payme-storm-app.js';

const capture = (): CliIo & { lines: string[] } => {
  const lines: string[] = [];
  return { lines, out: (line) => lines.push(line), err: (line) => lines.push(line) };
};

/** Every scenario but 8: the shop runs in this process, which the crash scenario refuses to kill. */
const ALL_BUT_CRASH = '1,2,3,4,5,6,7,9,10,11';

/**
 * `payonce storm --provider payme` through `servicePaymeTarget`, against the in-process shop's service-shaped
 * routes (`POST /orders`, `GET /orders/:id`, `POST /payme`, the admin re-run).
 */
describe('payonce storm --provider payme', () => {
  let good: PaymeStormApp;
  let stale: PaymeStormApp;
  let dir: string;
  beforeAll(async () => {
    [good, stale] = await Promise.all([startPaymeStormApp('sqlite'), startPaymeStormApp('sqlite', 'stale-replay')]);
    dir = await mkdtemp(join(tmpdir(), 'payonce-payme-storm-'));
  });
  afterAll(async () => {
    await Promise.all([good?.close(), stale?.close()]);
    await rm(dir, { recursive: true, force: true });
  });

  it('exits 0, prints the table and writes the report against a conforming service', async () => {
    const io = capture();
    const report = join(dir, 'payme.json');
    const args = ['storm', '--provider', 'payme', '--target', good.url, '--payme-key', KEY, '--admin-token', 'token'];
    expect(await runCli([...args, '--only', ALL_BUT_CRASH, '--report', report], io)).toBe(0);
    const text = io.lines.join('\n');
    expect(text).toMatch(/running 10 Payme scenarios, 4 at a time \(9 alone at the end\)/);
    expect(text).toMatch(/calls sent {2}faults {2}performs {2}paid transitions {2}fulfilments {2}verdict/);
    expect(text).toMatch(/PASS: 10\/10 Payme scenarios/);
    expect(text).not.toContain(KEY);
    const written = JSON.parse(await readFile(report, 'utf8')) as PaymeStormReport;
    expect(written.passed).toBe(true);
    expect(written.results.find((r) => r.id === 9)?.notes[0]).toMatch(/a `time` 12 h \+ 1 min old/);
    expect(written.results.find((r) => r.id === 11)?.notes.join(' ')).toMatch(/rerun of the done fulfilment job: 200/);
  });

  it('exits 1 and names the failed scenarios against a service replaying stale answers', async () => {
    const io = capture();
    const args = ['storm', '--provider', 'payme', '--target', stale.url, '--payme-key', KEY, '--only', '5,7'];
    expect(await runCli(args, io)).toBe(1);
    const text = io.lines.join('\n');
    expect(text).toMatch(/FAIL 5: Perform after Cancel: expected error -31008/);
    expect(text).toMatch(/FAIL: 1 of 2 Payme scenarios failed \(5\)/);
  });

  it('exits 1 when the key is refused, 2 without a key or with --replica', async () => {
    const base = ['storm', '--provider', 'payme', '--target', good.url];
    const wrong = capture();
    expect(await runCli([...base, '--payme-key', `${KEY}-not-it`], wrong)).toBe(1);
    expect(wrong.lines.join('\n')).toMatch(/refused the key \(-32504\)/);
    const none = capture();
    expect(await runCli(base, none)).toBe(2);
    expect(none.lines.join('\n')).toMatch(/--provider payme needs the cashbox key/);
    const replica = capture();
    expect(await runCli([...base, '--payme-key', KEY, '--replica', good.url], replica)).toBe(2);
  });
});
