import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../packages/sandbox/src/create-sandbox.js';
import { runStorm } from '../../packages/storm/src/run-storm.js';

// A target that is up (healthz answers) but never answers anything else must fail fast, not hang the storm.
describe('payonce storm against a service that hangs', () => {
  let sandbox: Sandbox;
  let server: Server;
  let url: string;
  beforeAll(async () => {
    sandbox = await createSandbox({ timeScale: 0.001, serveSecrets: true });
    server = createServer((request, response) => {
      if (request.url === '/healthz') {
        response.setHeader('content-type', 'application/json');
        response.end(JSON.stringify({ status: 'ok', pid: process.pid }));
      }
      // everything else: never answered
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await sandbox?.close();
  });

  it('fails every scenario with "no answer" within the per-request timeout', async () => {
    const startedAt = Date.now();
    const report = await runStorm({ target: url, provider: sandbox.url, only: [2, 8, 12], timeoutMs: 1_000 });
    expect(Date.now() - startedAt).toBeLessThan(15_000);
    expect(report.passed).toBe(false);
    for (const result of report.results) {
      expect(result.verdict, `scenario ${result.id}`).toBe('fail');
      expect(result.reasons.join('\n'), `scenario ${result.id}`).toMatch(
        /POST http:\/\/127\.0\.0\.1:\d+\/orders: no answer/,
      );
    }
  }, 30_000);
});
