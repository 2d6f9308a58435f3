import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

// The service loads the operator console's packages only with an admin token; when one is missing it must stop
// with the same typed "install X" error as every other optional package (MissingPeer), not a module-resolution
// stack. Runs the built service (dist/: `npm run build` first) in a child that cannot resolve those packages.

const root = fileURLToPath(new URL('../../packages/service/', import.meta.url));
const hooks = fileURLToPath(new URL('./support/no-console-packages.mjs', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'payonce-noconsole-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('createService with an admin token and the console packages missing', () => {
  it('throws MissingPeer naming the package and the install line', () => {
    const options = {
      port: 0,
      logLevel: 'silent',
      databaseUrl: join(dir, 'service.sqlite'),
      providerUrl: 'http://127.0.0.1:9',
      adminToken: randomBytes(24).toString('hex'),
    };
    const script = `
      const { createService } = await import('./dist/index.js');
      try { const service = await createService(${JSON.stringify(options)}); await service.close(); console.log('{}'); }
      catch (error) { console.log(JSON.stringify({ name: error.name, code: error.code, packageName: error.packageName, message: error.message })); }
      process.exit(0);`;
    const run = spawnSync(process.execPath, ['--import', hooks, '--input-type=module', '-e', script], {
      cwd: root,
      encoding: 'utf8',
      timeout: 30_000,
    });
    const result = JSON.parse(run.stdout.trim()) as Record<string, string>;
    expect(result).toMatchObject({ name: 'MissingPeer', code: 'MISSING_PEER_DEPENDENCY' });
    expect(result.message).toMatch(
      /^the operator console needs the package "@fastify\/\w+": npm install @fastify\/\w+@\d+$/,
    );
  });
});
