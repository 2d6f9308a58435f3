import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { Redis } from 'ioredis';
import { findFreePort } from '../../../../packages/cli/src/demo/free-port.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A redis-server of one test only: free loopback port, no persistence, stopped by its pid. */
export interface OwnRedis {
  readonly url: string;
  readonly port: number;
  /** SIGKILLs the server (by pid) and waits for its exit. */
  kill(): Promise<void>;
  /** Starts a fresh (empty) server on the same port. */
  restart(): Promise<void>;
}

async function spawnOn(port: number): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--loglevel', 'warning'],
    { stdio: 'ignore' },
  );
  const probe = new Redis({
    port,
    host: '127.0.0.1',
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  probe.on('error', () => {});
  for (let i = 0; i < 200; i++) {
    try {
      await probe.connect();
      await probe.ping();
      probe.disconnect();
      return child;
    } catch {
      probe.disconnect();
      await sleep(25);
    }
  }
  child.kill('SIGKILL');
  throw new Error('redis-server did not start');
}

export async function startOwnRedis(): Promise<OwnRedis> {
  const port = await findFreePort();
  let child: ChildProcess | null = await spawnOn(port);
  const kill = async (): Promise<void> => {
    const current = child;
    child = null;
    if (!current || current.exitCode !== null || current.signalCode !== null) return;
    const exited = once(current, 'exit');
    process.kill(current.pid as number, 'SIGKILL');
    await exited;
  };
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    kill,
    async restart() {
      await kill();
      child = await spawnOn(port);
    },
  };
}
