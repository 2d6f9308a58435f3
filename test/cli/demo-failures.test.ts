import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CliIo } from '../../packages/cli/src/cli-io.js';
import { runDemo } from '../../packages/cli/src/demo/run-demo.js';
import { payonceBin } from '../../packages/cli/src/demo/service-launch.js';
import { ServiceStartFailed } from '../../packages/cli/src/demo/service-start-failed.js';
import { runCli } from '../../packages/cli/src/run-cli.js';

// Needs `npm run build` (spawns the built CLI).
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const capture = (): CliIo & { stdout: string[]; stderr: string[] } => {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, out: (line) => stdout.push(line), err: (line) => stderr.push(line) };
};

// These run `payonce demo` in-process (runCli); its service child is still the built `payonce serve`.
// Every test of this file runs at once (describe.concurrent): each has its own port, directory and service child,
// and most of their time is spent waiting for a child or a timeout.
describe.concurrent('payonce demo: a service child that cannot start', () => {
  it('port already taken: says so, shows the child output, exits 1 without hanging', async () => {
    const squatter = createServer();
    squatter.listen(0, '127.0.0.1');
    await once(squatter, 'listening');
    const port = (squatter.address() as { port: number }).port;
    try {
      const io = capture();
      const startedAtMs = Date.now();
      expect(await runCli(['demo', '--port', String(port), '--database-url', ''], io)).toBe(1);
      const stderr = io.stderr.join('\n');
      expect(stderr).toMatch(/payonce demo: the payonce service did not start: pid \d+ exited with code 1/);
      expect(stderr).toMatch(/^service output \(last \d+ lines\):$/m);
      expect(stderr).toContain('EADDRINUSE');
      expect(io.stdout.join('\n')).not.toContain('scenario ');
      expect(Date.now() - startedAtMs).toBeLessThan(30_000);
    } finally {
      squatter.close();
    }
  }, 60_000);

  // runDemo itself (as `payonce demo` calls it, with the same service child) to wait 10 s for the service rather
  // than the default 30 s; the exit code 1 of a ServiceStartFailed is the port test's above.
  it('unreachable database: fails to start with the driver error, password redacted', async () => {
    const io = capture();
    const url = 'postgres://postgres:placeholder-pw@127.0.0.1:1/test';
    const failed = await runDemo(io, { databaseUrl: url, serviceStartTimeoutMs: 10_000 }).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(ServiceStartFailed);
    const all = [...io.stdout, ...io.stderr, (failed as Error).message].join('\n');
    // The service no longer exits (it waits for its database, issue 34 item 19): it never turns healthy.
    expect(all).toMatch(/the payonce service did not start: pid \d+ was not healthy within 10000 ms/);
    expect(all).toMatch(/ECONNREFUSED/);
    expect(all).toContain('payonce serve on postgres postgres://postgres:***@127.0.0.1:1/test');
    expect(all).not.toContain('placeholder-pw');
  }, 60_000);

  it('malformed flags: exit 2 before anything starts', async () => {
    const bad = capture();
    expect(await runCli(['demo', '--database-url', 'redis://127.0.0.1:6379'], bad)).toBe(2);
    expect(bad.stderr.join('\n')).toContain('unsupported scheme "redis:"');
    const only = capture();
    expect(await runCli(['demo', '--only', '1,23'], only)).toBe(2);
    expect(only.stderr.join('\n')).toContain('"23" is not a scenario number from 1 to 22');
    const port = capture();
    expect(await runCli(['demo', '--port', '70000'], port)).toBe(2);
    expect([...bad.stdout, ...only.stdout, ...port.stdout]).toEqual([]);
  });
});

describe.concurrent('payonce demo: a service that does not come back', () => {
  it('reports scenario 12 failed and the supervisor giving up, with the service output, and does not pass', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'payonce-demo-gone-'));
    const io = capture();
    let removed: Promise<void> | null = null;
    const out = io.out;
    io.out = (line) => {
      out(line);
      // Once the service runs, its database directory disappears: every restart after scenario 12's kill fails.
      if (line.startsWith('service http://')) removed = rm(dir, { recursive: true, force: true });
    };
    try {
      const result = await runDemo(io, {
        databaseUrl: join(dir, 'demo.sqlite'),
        only: [12],
        scenarioTimeoutMs: 10_000,
      });
      expect(removed).not.toBeNull();
      expect(result.passed).toBe(false);
      expect(result.restarts).toEqual([]);
      expect(result.storm?.results.map((r) => [r.id, r.verdict])).toEqual([[12, 'fail']]);
      expect([result.payme, result.click, result.uzum], 'no local storm against a service that is down').toEqual([
        null,
        null,
        null,
      ]);
      const stderr = io.stderr.join('\n');
      expect(stderr).toContain('Payme, Click, Uzum and Telegram storms not run: a service replica is down for good');
      expect(stderr).toMatch(/service down for good: pid \d+ killed by SIGKILL, then 3 restarts in a row failed/);
      expect(stderr).toMatch(/^service output \(last \d+ lines\):$/m);
      expect(stderr).toMatch(/directory does not exist|unable to open database|SQLITE_CANTOPEN/i);
      expect(io.stdout.join('\n')).toMatch(/^FAIL: 1 of 1 scenarios failed \(12\)/m);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

/** The console token the demo is started with (random: a fixed placeholder would be refused as predictable). */
const DEMO_TOKEN = randomBytes(32).toString('hex');

describe.concurrent('payonce demo --serve', () => {
  it('keeps the service and the sandbox running for a real order until Ctrl-C, then stops both', async () => {
    const child = spawn(process.execPath, [payonceBin(), 'demo', '--serve', '--only', 'none'], {
      env: { ...process.env, DATABASE_URL: '', PAYONCE_ADMIN_TOKEN: DEMO_TOKEN },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const closed = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
    const killer = setTimeout(() => child.kill('SIGKILL'), 50_000);
    try {
      const deadline = Date.now() + 30_000;
      while (!stdout.includes('Ctrl-C stops both') && Date.now() < deadline && child.exitCode === null) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(stdout, stderr).toContain('Ctrl-C stops both');
      expect(stdout).not.toContain('scenario ');
      const service = /^service {2}(http:\/\/127\.0\.0\.1:\d+) {2}\(pid (\d+)/m.exec(stdout)!;
      const sandbox = /^sandbox {2}(http:\/\/127\.0\.0\.1:\d+)/m.exec(stdout)!;
      const [url, pid] = [service[1]!, Number(service[2])];
      const customer = { 'x-customer-id': 'demo-test-customer' };
      const created = await fetch(`${url}/orders`, {
        method: 'POST',
        headers: { ...customer, 'content-type': 'application/json' },
        body: JSON.stringify({ amountMinor: 1999, currency: 'EUR' }),
      });
      expect(created.status).toBe(201);
      const orderId = ((await created.json()) as { order: { id: string } }).order.id;
      const checkout = await fetch(`${url}/orders/${orderId}/checkout`, {
        method: 'POST',
        headers: { ...customer, 'idempotency-key': 'demo-test-checkout' },
      });
      expect(checkout.status).toBe(201);
      type View = { order: { status: string }; fulfilments: unknown[]; jobs: Array<{ id: string; status: string }> };
      const read = async () => (await (await fetch(`${url}/orders/${orderId}`, { headers: customer })).json()) as View;
      let view = await read();
      for (let i = 0; i < 100 && view.order.status !== 'completed'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        view = await read();
      }
      expect(view.order.status).toBe('completed');
      expect(view.fulfilments).toHaveLength(1);
      // PAYONCE_ADMIN_TOKEN chose the console's token: the dead-job list answers with it; the old rerun route is gone.
      const auth = { authorization: `Bearer ${DEMO_TOKEN}` };
      expect((await fetch(`${url}/admin/api/jobs?status=dead`, { headers: auth })).status).toBe(200);
      const job = view.jobs.find((j) => j.status === 'done')!;
      expect((await fetch(`${url}/admin/jobs/${job.id}/rerun`, { method: 'POST', headers: auth })).status).toBe(404);
      expect(stdout).not.toContain(DEMO_TOKEN);
      expect(stdout).toContain('authorization: Bearer $PAYONCE_ADMIN_TOKEN');
      const ledger = await fetch(`${sandbox[1]}/_sandbox/charges?order_id=${orderId}`);
      expect(((await ledger.json()) as { chargeCount: number }).chargeCount).toBe(1);

      for (let i = 0; i < 100 && view.jobs.some((j) => j.status !== 'done'); i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        view = await read();
      }
      expect(view.fulfilments).toHaveLength(1);

      child.kill('SIGINT');
      expect(await closed).toBe(0);
      expect(isRunning(pid)).toBe(false);
      const kept = /stopping; the database stays: sqlite (\S+)\/payonce-demo\.sqlite/.exec(stdout);
      expect(kept).not.toBeNull();
      await rm(kept![1]!, { recursive: true, force: true });
    } finally {
      clearTimeout(killer);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 60_000);
});
