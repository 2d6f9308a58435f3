import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { paymentBody, post } from './support/client.js';
import type { AdapterName } from './support/example-servers.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const children: ChildProcess[] = [];
const dirs: string[] = [];

/** Starts `examples/<name>/server.ts` as its own process (as a user would) and waits for its address. */
async function start(name: AdapterName, sqlitePath: string): Promise<string> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'examples', name, 'server.ts')], {
    cwd: root,
    env: { ...process.env, PORT: '0', PAYONCE_SQLITE_PATH: sqlitePath },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} example did not start: ${output}`)), 20_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
      if (url) {
        clearTimeout(timer);
        resolve(url);
      }
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    child.on('exit', (code) => reject(new Error(`${name} example exited with ${code}: ${output}`)));
  });
}

afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  }
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe.each<AdapterName>(['express', 'fastify', 'hono'])('examples/%s/server.ts run as a process', (name) => {
  it('serves a payment once per key on a SQLite file, then replays it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'payonce-example-'));
    dirs.push(dir);
    const url = await start(name, join(dir, 'example.db'));
    const body = paymentBody('order-1001');
    const first = await post(`${url}/v1/payments`, { key: '"order-1001"', body });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const replay = await post(`${url}/v1/payments`, { key: 'order-1001', body });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.bytes).toEqual(first.bytes);
    expect((await post(`${url}/v1/payments`, { body })).status).toBe(400);
    expect((await post(`${url}/v1/payments`, { key: 'k', token: 'nope', body })).status).toBe(401);
  });
});
