import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { runPayonce } from '../../packages/payonce/src/cli/run-payonce.js';
import { migrationSql } from '../../packages/payonce/src/stores/sql/migration-script.js';

// The library's own `payonce migrate` runs when @payonce/cli is not installed: make it look absent.
vi.mock('../../packages/payonce/src/core/import-peer.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../packages/payonce/src/core/import-peer.js')>();
  return {
    ...original,
    importPeer: async (name: string, neededFor: string) => {
      if (name === '@payonce/cli') throw new original.MissingPeer(name, neededFor);
      return original.importPeer(name, neededFor);
    },
  };
});

const capture = () => {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, out: (line: string) => stdout.push(line), err: (line: string) => stderr.push(line) };
};

describe('payonce migrate without @payonce/cli (node:util parseArgs)', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  it('--only migrates the named groups (and says what it pulled in), a later run adds the rest', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'payonce-migrate-only-'));
    dirs.push(dir);
    const url = join(dir, 'payonce.db');
    const first = capture();
    expect(await runPayonce(['migrate', '--database-url', url, '--only', 'http', '--only', 'outbox'], first)).toBe(0);
    expect(first.stdout).toContain('groups: receipts, http, outbox');
    expect(first.stdout.some((line) => line.startsWith('http needs receipts ('))).toBe(true);
    expect(first.stdout).toContain('applied 0003-outbox');
    expect(first.stdout).not.toContain('applied 0002-payments');
    const second = capture();
    expect(await runPayonce(['migrate', '--database-url', url], second)).toBe(0);
    expect(second.stdout).toContain('applied 0002-payments');
    expect(second.stdout).not.toContain('applied 0003-outbox');
  });

  it('--help names @payonce/cli and the tooling package each other command needs', async () => {
    const io = capture();
    expect(await runPayonce(['--help'], io)).toBe(0);
    const usage = io.stdout.join('\n');
    expect(usage).toContain('npm install @payonce/cli');
    expect(usage).toMatch(/^ {2}storm, replay +@payonce\/storm$/m);
    expect(usage).toMatch(/^ {2}serve, worker, console, inspect, receipts, jobs +@payonce\/service$/m);
    expect(usage).toMatch(/^ {2}sandbox, sandbox payme +@payonce\/sandbox$/m);
  });

  it('--print-sql --dialect prints the script', async () => {
    const io = capture();
    expect(await runPayonce(['migrate', '--print-sql', '--dialect', 'sqlite', '--only', 'receipts'], io)).toBe(0);
    expect(`${io.stdout.join('\n')}\n`).toBe(migrationSql('sqlite', { only: ['receipts'] }));
  });

  it('--print-sql --dialect sqlite --table-prefix prints the prefixed script', async () => {
    const io = capture();
    const args = ['migrate', '--print-sql', '--dialect', 'sqlite', '--table-prefix', 'billing_', '--only', 'outbox'];
    expect(await runPayonce(args, io)).toBe(0);
    expect(`${io.stdout.join('\n')}\n`).toBe(migrationSql('sqlite', { only: ['outbox'], tablePrefix: 'billing_' }));
    expect(io.stdout.join('\n')).toContain('create table if not exists billing_outbox');
  });

  it.each([
    [['--only', 'receipts,orders', '--database-url', ':memory:'], 'unknown migration group "orders"'],
    [['--print-sql', '--dialect', 'oracle'], 'must be sqlite, postgres or mysql, got oracle'],
    [['--print-sql'], '--print-sql needs --dialect'],
    [['--dialect', 'sqlite', '--database-url', ':memory:'], 'is for --print-sql only'],
  ])('%j exits 2 saying what is wrong', async (args, message) => {
    const io = capture();
    expect(await runPayonce(['migrate', ...args], io)).toBe(2);
    expect(io.stderr.join('\n')).toContain(message);
  });
});
