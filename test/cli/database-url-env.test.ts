import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_SERVICE_TIMINGS } from '../../packages/cli/src/demo/demo-service-timings.js';
import { serviceLaunch } from '../../packages/cli/src/demo/service-launch.js';
import { runCli } from '../../packages/cli/src/run-cli.js';
import { runPayonce } from './support/run-payonce.js';

// Issue #11 item 14: one convention for every command that opens the database: `--database-url`, else
// `PAYONCE_DATABASE_URL`, else `DATABASE_URL` (an empty value counts as unset), both named in `--help`.

const dir = mkdtempSync(join(tmpdir(), 'payonce-dburl-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const NAMES = ['PAYONCE_DATABASE_URL', 'DATABASE_URL', 'PAYONCE_PROVIDER_URL'] as const;
let saved: Partial<Record<(typeof NAMES)[number], string>> = {};
beforeEach(() => {
  saved = {};
  for (const name of NAMES) {
    if (process.env[name] !== undefined) saved[name] = process.env[name];
    delete process.env[name];
  }
});
afterEach(() => {
  for (const name of NAMES) {
    delete process.env[name];
    if (saved[name] !== undefined) process.env[name] = saved[name];
  }
});

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(args, { out: (line) => out.push(line), err: (line) => err.push(line) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('every command reads PAYONCE_DATABASE_URL, else DATABASE_URL', () => {
  it.each(['migrate', 'serve', 'worker', 'demo'])('payonce %s --help names both variables', async (command) => {
    const help = await cli([command, '--help']);
    expect(help.out).toContain('PAYONCE_DATABASE_URL');
    expect(help.out.replaceAll('PAYONCE_DATABASE_URL', '')).toContain('DATABASE_URL');
  });

  it('migrate runs on DATABASE_URL alone', async () => {
    const file = join(dir, 'generic.db');
    process.env.DATABASE_URL = file;
    const run = await cli(['migrate']);
    expect(run.err).toBe('');
    expect(run.code).toBe(0);
    expect(run.out).toContain(`sqlite ${file}`);
    expect(existsSync(file)).toBe(true);
  });

  it('migrate prefers PAYONCE_DATABASE_URL over DATABASE_URL, and the flag over both', async () => {
    process.env.PAYONCE_DATABASE_URL = join(dir, 'specific.db');
    process.env.DATABASE_URL = join(dir, 'ignored.db');
    expect((await cli(['migrate'])).out).toContain(`sqlite ${join(dir, 'specific.db')}`);
    const flagged = await cli(['migrate', '--database-url', join(dir, 'flag.db')]);
    expect(flagged.out).toContain(`sqlite ${join(dir, 'flag.db')}`);
    expect(existsSync(join(dir, 'ignored.db'))).toBe(false);
  });

  it('migrate without any of them says what to pass (exit 2)', async () => {
    process.env.DATABASE_URL = '';
    const run = await cli(['migrate']);
    expect(run.code).toBe(2);
    expect(run.err).toMatch(/--database-url.*PAYONCE_DATABASE_URL.*DATABASE_URL/);
  });

  it.each(['serve', 'worker'])(
    '%s reads PAYONCE_DATABASE_URL (a bad one is refused before anything starts)',
    async (command) => {
      process.env.PAYONCE_DATABASE_URL = 'redis://127.0.0.1:6379';
      process.env.DATABASE_URL = join(dir, 'unused.db');
      const run = await cli([command]);
      expect(run.code).toBe(2);
      expect(run.err).toContain('unsupported scheme "redis:"');
    },
  );

  it('demo reads PAYONCE_DATABASE_URL too (a bad one is refused before anything starts)', async () => {
    const run = await runPayonce(
      ['demo'],
      { PAYONCE_DATABASE_URL: 'redis://127.0.0.1:6379', DATABASE_URL: '' },
      20_000,
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('unsupported scheme "redis:"');
  });

  it("the demo's service child gets the demo's database only, whatever the parent's PAYONCE_DATABASE_URL says", () => {
    const launch = serviceLaunch({
      databaseUrl: join(dir, 'demo.db'),
      providerUrl: 'http://127.0.0.1:1',
      stripeWebhookSecret: 'whsec_placeholder',
      standardWebhooksSecret: 'whsec_cGxhY2Vob2xkZXI=',
      adminToken: 'placeholder-admin-token',
      port: 1,
      timings: DEMO_SERVICE_TIMINGS,
      baseEnv: { PAYONCE_DATABASE_URL: 'postgres://elsewhere/db', DATABASE_URL: 'elsewhere.db' },
    });
    expect(launch.env.PAYONCE_DATABASE_URL).toBeUndefined();
    expect(launch.env.DATABASE_URL).toBe(join(dir, 'demo.db'));
  });
});
