import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PackedApp, packedApp, userEnv } from './support/packed-app.js';

// The tooling installs and runs from its READMEs: the five packed packages in one empty app, then
// `npx payonce sandbox --port 0`, which needs no database (and no database driver is installed). Then, in the same
// app (one install keeps the suite fast), a user who installed only `payonce`, `@payonce/cli` and `@payonce/sandbox`.

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

const payonce = (...args: string[]) => app.exec('npx', ['--no', '--', 'payonce', ...args]);

// @payonce/service and @payonce/storm are optional peers of @payonce/cli: a newcomer who wants the Payme sandbox
// installs neither. Removing their folders leaves the app as Node's resolver sees such an install. The commands that
// do not need them must run; those that do must name the package to install, not crash with ERR_MODULE_NOT_FOUND.
describe('the same app without @payonce/service and @payonce/storm', () => {
  beforeAll(() => {
    for (const name of ['service', 'storm']) {
      rmSync(join(app.dir, 'node_modules', '@payonce', name), { recursive: true, force: true });
    }
    expect(app.installed()).not.toContain('@payonce/storm');
  });

  it('prints `payonce --help` naming the package each command needs, and the help of sandbox payme and storm', async () => {
    const [main, payme, storm] = await Promise.all([
      payonce('--help'),
      payonce('sandbox', 'payme', '--help'),
      payonce('storm', '--help'),
    ]);
    for (const run of [main, payme, storm]) expect(run).toMatchObject({ code: 0, stderr: '' });
    const help = main.stdout.replace(/\s+/g, ' ');
    expect(help).toMatch(/ storm \[options\] run the conformance scenarios .{0,200}?\(needs @payonce\/storm\)/);
    expect(help).toContain(' jobs [options] list dead-lettered outbox jobs (needs @payonce/service)');
    expect(payme.stdout).toContain('--check [url]');
    expect(storm.stdout.replace(/\s+/g, ' ')).toContain('(needs @payonce/storm)');
  }, 60_000);

  it('answers the commands that need them with exit 1 and the package to install, no stack trace', async () => {
    const cases = [
      [['storm', '--target', 'http://127.0.0.1:9', '--provider', 'http://127.0.0.1:9'], 'storm', '@payonce/storm'],
      [['replay', 'captures.jsonl', '--target', 'http://127.0.0.1:9'], 'replay', '@payonce/storm'],
      [['jobs', '--dead', '--database-url', 'payonce.sqlite'], 'jobs', '@payonce/service'],
      [['inspect', 'order', 'ord_1', '--database-url', 'payonce.sqlite'], 'inspect', '@payonce/service'],
      [['worker', '--provider-url', 'http://127.0.0.1:9'], 'worker', '@payonce/service'],
    ] as const;
    const runs = await Promise.all(cases.map(([args]) => payonce(...args)));
    for (const [i, [, command, needed]] of cases.entries()) {
      expect(runs[i], command).toMatchObject({
        code: 1,
        stdout: '',
        stderr: `payonce ${command} needs the package "${needed}": npm install ${needed}@0.1.0\n`,
      });
    }
  }, 60_000);
});
