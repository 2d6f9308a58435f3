import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../packages/cli/src/run-cli.js';
import { captureLine } from '../../packages/storm/src/replay/capture-line.js';
import type { ReplayReport } from '../../packages/storm/src/replay/replay-report.js';
import { type LocalTarget, startLocalTarget } from './local-target.js';

let target: LocalTarget;
let dir: string;
beforeAll(async () => {
  target = await startLocalTarget();
  dir = await mkdtemp(path.join(tmpdir(), 'payonce-replay-cli-'));
});
afterAll(async () => {
  await target.close();
  await rm(dir, { recursive: true, force: true });
});

async function captureFile(name: string, lines: string[]): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, `${lines.join('\n')}\n`);
  return file;
}

async function cli(...args: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(['replay', ...args], { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out, err };
}

const good = [
  captureLine({ id: 'paid', path: '/ok', headers: { 'x-n': '1' }, body: '{"a":1}', expect: 'accepted' }),
  captureLine({ id: 'forged', path: '/refuse', headers: { 'x-n': '2' }, body: '{"a":2}', expect: 'rejected' }),
];

describe('payonce replay', () => {
  it('exits 0 when every capture matches, prints progress, a table and a PASS line, and writes the report', async () => {
    target.received.splice(0);
    const file = await captureFile('good.jsonl', good);
    const reportFile = path.join(dir, 'report.json');
    const { code, out, err } = await cli(
      file,
      '--target',
      target.url,
      '--copies',
      '3',
      '--parallel',
      '2',
      '--report',
      reportFile,
    );
    expect(err).toEqual([]);
    expect(code).toBe(0);
    expect(target.received).toHaveLength(6);
    expect(out[0]).toBe(
      `payonce replay: 2 captures from ${file} to ${target.url}, 3 copies each (6 deliveries), 2 in parallel`,
    );
    expect(out).toContain('  6/6 sent: 3 2xx, 3 non-2xx, 0 no answer');
    const header = out.findIndex((l) => l.startsWith('capture '));
    expect(out[header]).toMatch(
      /^capture\s+expect\s+sent\s+2xx\s+4xx\s+5xx\s+none\s+replayed\s+distinct\s+verdict\s+answers$/,
    );
    expect(out[header + 1]).toMatch(/^paid\s+accepted\s+3\s+3\s+0\s+0\s+0\s+0\s+1\s+matched\s+200 ×3$/);
    expect(out[header + 2]).toMatch(
      /^forged\s+rejected\s+3\s+0\s+3\s+0\s+0\s+0\s+1\s+matched\s+401 ×3 \[WEBHOOK_SIGNATURE_INVALID\]$/,
    );
    expect(out.find((l) => l.startsWith('PASS: '))).toMatch(
      /^PASS: 2 matched, 0 unchecked; 2 captures, 6 deliveries \(3 2xx, 3 4xx, 0 5xx, 0 other, 0 no answer\), 0 replayed; 3 copies each, 2 in parallel, in file order, \d+ ms$/,
    );
    expect(out.at(-1)).toBe(`report written to ${reportFile}`);
    const report = JSON.parse(await readFile(reportFile, 'utf8')) as ReplayReport;
    expect(report.ok).toBe(true);
    expect(report.deliveries).toHaveLength(6);
    expect(report.captures.map((c) => [c.id, c.statuses])).toEqual([
      ['paid', [200, 200, 200]],
      ['forged', [401, 401, 401]],
    ]);
  });

  it('prints the seed of a shuffled run in the summary', async () => {
    const file = await captureFile('seeded.jsonl', good);
    const { code, out } = await cli(file, '--target', target.url, '--shuffle', '--seed', 'abc');
    expect(code).toBe(0);
    expect(out.find((l) => l.startsWith('PASS: '))).toContain('shuffled with seed abc');
  });

  it('exits 1 when a capture contradicts its expect, after printing the table and writing the report', async () => {
    const file = await captureFile('bad.jsonl', [
      ...good,
      captureLine({ id: 'should-pass', path: '/refuse', headers: {}, body: '', expect: 'accepted' }),
    ]);
    const reportFile = path.join(dir, 'failed.json');
    const { code, out, err } = await cli(file, '--target', target.url, '--report', reportFile);
    expect(code).toBe(1);
    expect(out.find((l) => l.startsWith('should-pass'))).toMatch(/contradicted\s+expected accepted, got 401 ×1/);
    expect(out.find((l) => l.startsWith('FAIL: '))).toMatch(
      /^FAIL: 1 of 3 captures contradict their expect \(should-pass\);/,
    );
    expect(err).toEqual(['payonce replay: 1 capture(s) contradict their expect: should-pass']);
    expect((JSON.parse(await readFile(reportFile, 'utf8')) as ReplayReport).ok).toBe(false);
  });

  it.each([
    ['an invalid line (nothing is sent)', 'invalid', /invalid\.jsonl line 2: expect must be "accepted" or "rejected"/],
    ['a missing file', 'missing', /missing\.jsonl: cannot be read \(ENOENT\)/],
    ['a bad target URL', 'url', /^payonce replay: --target must be an http:\/\/ or https:\/\/ URL$/],
    ['a bad --copies', 'copies', /option '--copies <n>' argument '0' is invalid. must be from 1 to 1000/],
    ['a missing --target', 'no-target', /required option '--target <url>' not specified/],
    ['a report folder that does not exist', 'report', /--report: folder .* does not exist/],
    ['--seed without --shuffle', 'seed', /^payonce replay: --seed orders a shuffle: pass --shuffle with it$/],
  ])('exits 2 on %s', async (_name, variant, message) => {
    target.received.splice(0);
    const invalid = await captureFile('invalid.jsonl', [
      good[0]!,
      '{"path":"/ok","headers":{},"body":"","expect":"valid"}',
    ]);
    const args: Record<string, string[]> = {
      invalid: [invalid, '--target', target.url],
      missing: [path.join(dir, 'missing.jsonl'), '--target', target.url],
      url: [invalid, '--target', 'ftp://127.0.0.1/'],
      copies: [invalid, '--target', target.url, '--copies', '0'],
      'no-target': [invalid],
      report: [
        await captureFile('ok.jsonl', good),
        '--target',
        target.url,
        '--report',
        path.join(dir, 'nope', 'r.json'),
      ],
      seed: [await captureFile('ok.jsonl', good), '--target', target.url, '--seed', 'abc'],
    };
    const { code, err } = await cli(...args[variant]!);
    expect(code).toBe(2);
    expect(err.join('\n')).toMatch(message);
    expect(target.received).toEqual([]);
  });
});
