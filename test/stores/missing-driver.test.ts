import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

// Without an optional peer driver, a store said `ERR_MODULE_NOT_FOUND: Cannot find package
// 'better-sqlite3'`; it must say which package to install. Each case runs the built package (dist/) in a child
// whose module resolution refuses the four drivers (test/stores/support/no-drivers.mjs).

const root = fileURLToPath(new URL('../../packages/payonce/', import.meta.url));
const hooks = fileURLToPath(new URL('./support/no-drivers.mjs', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'payonce-nodriver-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function withoutDrivers(args: string[]) {
  return spawnSync(process.execPath, ['--import', hooks, ...args], { cwd: root, encoding: 'utf8', timeout: 20_000 });
}

const cases = [
  [
    'SqliteStore.open',
    'sqlite',
    `(await import('./dist/stores/sqlite/index.js')).SqliteStore.open(':memory:')`,
    'better-sqlite3@12',
  ],
  [
    'PostgresStore.connect',
    'postgres',
    `(await import('./dist/stores/postgres/index.js')).PostgresStore.connect('postgres://127.0.0.1:9/x')`,
    'pg@8',
  ],
  [
    'MysqlStore.connect',
    'mysql',
    `(await import('./dist/stores/mysql/index.js')).MysqlStore.connect('mysql://127.0.0.1:9/x')`,
    'mysql2@3',
  ],
  [
    'RedisStore.connect',
    'redis',
    `(await import('./dist/stores/redis/index.js')).RedisStore.connect('redis://127.0.0.1:9')`,
    'ioredis@6',
  ],
] as const;

describe('a store whose optional driver is not installed', () => {
  it.each(cases)('%s throws MissingPeer naming the package to install', (_name, _entry, open, install) => {
    const script = `
      try { await ${open}; console.log(JSON.stringify({ opened: true })); }
      catch (error) { console.log(JSON.stringify({ name: error.name, code: error.code, packageName: error.packageName, message: error.message })); }`;
    const run = withoutDrivers(['--input-type=module', '-e', script]);
    expect(run.stderr).toBe('');
    const result = JSON.parse(run.stdout.trim()) as Record<string, string>;
    expect(result).toMatchObject({
      name: 'MissingPeer',
      code: 'MISSING_PEER_DEPENDENCY',
      packageName: install.split('@')[0],
    });
    expect(result.message).toContain(`npm install ${install}`);
  });

  it('payonce migrate on SQLite says which package to install, exit 1', () => {
    const run = withoutDrivers(['bin/payonce.js', 'migrate', '--database-url', join(dir, 'x.db')]);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('npm install better-sqlite3@12');
    expect(run.stderr).not.toContain('ERR_MODULE_NOT_FOUND');
  });
});
