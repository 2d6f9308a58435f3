import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { findFreePort } from '../../packages/cli/src/demo/free-port.js';
import { ServiceStartFailed } from '../../packages/cli/src/demo/service-start-failed.js';
import {
  type ServiceRestart,
  ServiceSupervisor,
  type ServiceSupervisorOptions,
} from '../../packages/cli/src/demo/service-supervisor.js';

const FAKE = fileURLToPath(new URL('./support/fake-service.mjs', import.meta.url));

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const started: ServiceSupervisor[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.stop()));
});

async function options(extra: Partial<ServiceSupervisorOptions> = {}, mode = 'ok'): Promise<ServiceSupervisorOptions> {
  const port = await findFreePort();
  return {
    script: FAKE,
    args: ['--port', String(port)],
    env: { ...process.env, FAKE_SERVICE_MODE: mode },
    healthUrl: `http://127.0.0.1:${port}/healthz`,
    startTimeoutMs: 10_000,
    ...extra,
  };
}

describe('payonce demo: the service supervisor', () => {
  it('restarts the child on the same port after a SIGKILL it did not ask for, and stop() ends it', async () => {
    const restarts: ServiceRestart[] = [];
    const opts = await options({ onRestart: (r) => restarts.push(r) });
    const supervisor = await ServiceSupervisor.start(opts);
    started.push(supervisor);
    const first = supervisor.pid;
    const health = (await (await fetch(opts.healthUrl)).json()) as { pid: number };
    expect(health.pid).toBe(first);

    process.kill(first, 'SIGKILL');
    await until(() => restarts.length === 1);
    expect(restarts[0]).toMatchObject({ fromPid: first, exit: 'killed by SIGKILL' });
    const second = supervisor.pid;
    expect(second).not.toBe(first);
    expect(restarts[0]!.toPid).toBe(second);
    expect(((await (await fetch(opts.healthUrl)).json()) as { pid: number }).pid).toBe(second);
    expect(supervisor.output().some((line) => line.startsWith(`[${second} out] fake service listening`))).toBe(true);

    await supervisor.stop();
    expect(isRunning(second)).toBe(false);
    expect(supervisor.restarts).toHaveLength(1);
    expect(supervisor.failure).toBeNull();
  });

  it('fails clearly, with the child output, when the child exits before it is healthy', async () => {
    const error = await ServiceSupervisor.start(await options({}, 'fail')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceStartFailed);
    const failed = error as ServiceStartFailed;
    expect(failed.message).toMatch(/did not start: pid \d+ exited with code 1 before it was healthy/);
    expect(failed.output.join('\n')).toContain('cannot open the database (placeholder failure)');
  });

  it('does not take another process answering /healthz on the port for its child', async () => {
    const squatter = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ status: 'ok', pid: 1 }));
    });
    squatter.listen(0, '127.0.0.1');
    await once(squatter, 'listening');
    const port = (squatter.address() as { port: number }).port;
    try {
      const error = await ServiceSupervisor.start({
        ...(await options()),
        args: ['--port', String(port)],
        healthUrl: `http://127.0.0.1:${port}/healthz`,
      }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ServiceStartFailed);
      expect((error as ServiceStartFailed).output.join('\n')).toContain('EADDRINUSE');
    } finally {
      squatter.close();
    }
  });

  it('kills a child that never becomes healthy after startTimeoutMs', async () => {
    const error = await ServiceSupervisor.start(await options({ startTimeoutMs: 500 }, 'silent')).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ServiceStartFailed);
    const match = /pid (\d+) was not healthy within 500 ms/.exec((error as Error).message);
    expect(match).not.toBeNull();
    await until(() => !isRunning(Number(match![1])), 2_000);
  });

  it('gives up after maxFailedRestarts failed restarts in a row and says why', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'payonce-supervisor-'));
    try {
      let gaveUp: ServiceStartFailed | null = null;
      const base = await options({ maxFailedRestarts: 2, onGiveUp: (f) => (gaveUp = f) }, 'fail-after-first');
      const supervisor = await ServiceSupervisor.start({
        ...base,
        env: { ...base.env, FAKE_SERVICE_STATE: join(dir, 'started') },
      });
      started.push(supervisor);
      process.kill(supervisor.pid, 'SIGKILL');
      await until(() => supervisor.failure !== null);
      expect(gaveUp).toBe(supervisor.failure);
      expect(supervisor.failure!.message).toMatch(
        /pid \d+ killed by SIGKILL, then 2 restarts in a row failed; last: pid \d+ exited/,
      );
      expect(supervisor.failure!.output.join('\n')).toContain('placeholder failure');
      expect(supervisor.restarts).toHaveLength(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
