import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PackedApp, packedApp, userEnv } from './support/packed-app.js';

// The tooling installs and runs from its READMEs: the five packed packages in one empty app, then
// `npx payonce sandbox --port 0`, which needs no database (and no database driver is installed).

let app: PackedApp;
beforeAll(async () => {
  app = await packedApp(['payonce', 'sandbox', 'storm', 'service', 'cli']);
}, 150_000);
afterAll(() => app?.remove());

/** Whether the sandbox at `url` stops answering within 10 s of its stop signal. */
async function stopped(url: string): Promise<boolean> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const answered = await fetch(`${url}/_sandbox/ledger`).then(
      () => true,
      () => false,
    );
    if (!answered) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

describe('the packed tooling installed into one empty app', () => {
  it('installs no database driver', () => {
    const installed = app.installed();
    for (const name of ['@payonce/cli', '@payonce/sandbox', '@payonce/storm', '@payonce/service']) {
      expect(installed, name).toContain(name);
    }
    for (const name of ['better-sqlite3', 'pg', 'mysql2', 'ioredis']) expect(installed, name).not.toContain(name);
  });

  it('runs `npx payonce sandbox --port 0` until it prints its URL, which answers', async () => {
    // Its own process group: npx runs the command through a shell that does not pass a signal on.
    const child = spawn('npx', ['--no', 'payonce', 'sandbox', '--port', '0'], {
      cwd: app.dir,
      env: userEnv(),
      detached: true,
    });
    const exited = once(child, 'exit');
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    let url: string | undefined;
    try {
      url = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          stdout += chunk.toString();
          const found = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout);
          if (found?.[1] !== undefined) resolve(found[1]);
        });
        child.on('exit', (code) => reject(new Error(`exited ${String(code)} before printing its URL: ${stderr}`)));
      });
      const ledger = await fetch(`${url}/_sandbox/ledger`);
      expect(ledger.status).toBe(200);
    } finally {
      if (child.exitCode === null && child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
      await exited;
    }
    expect(stderr).not.toContain('ERR_MODULE_NOT_FOUND');
    expect(await stopped(url)).toBe(true);
  }, 60_000);
});
