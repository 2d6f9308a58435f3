import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Cluster, Redis } from 'ioredis';

const run = promisify(execFile);

/** A throw-away 3-master Redis Cluster on free loopback ports, started and stopped by this test process. */
export interface TestRedisCluster {
  /** `{ host, port }` of each master. */
  readonly nodes: readonly { host: string; port: number }[];
  /** A new ioredis `Cluster` client on it (closed by the caller, or by `stop()`). */
  client(): Cluster;
  /** Stops every redis-server by its pid and removes its directory. */
  stop(): Promise<void>;
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ host: '127.0.0.1', port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** A free port whose cluster bus port (port + 10 000) is free too. */
async function clusterPort(taken: Set<number>): Promise<number> {
  for (let tries = 0; tries < 200; tries++) {
    const port = 20_000 + Math.floor(Math.random() * 35_000);
    if (taken.has(port) || taken.has(port + 10_000)) continue;
    if ((await portFree(port)) && (await portFree(port + 10_000))) {
      taken.add(port);
      taken.add(port + 10_000);
      return port;
    }
  }
  throw new Error('redis cluster: no free port pair found');
}

async function untilReady(check: () => Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > until) throw new Error(`redis cluster: ${what} not ready after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function withNode<T>(port: number, fn: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis({
    host: '127.0.0.1',
    port,
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on('error', () => {});
  try {
    await redis.connect();
    return await fn(redis);
  } finally {
    redis.disconnect();
  }
}

/**
 * Starts 3 `redis-server --cluster-enabled yes` processes (own temporary directories, no persistence) on free
 * ports, joins them with `redis-cli --cluster create … --cluster-yes` (3 masters, no replicas) and waits for
 * `cluster_state:ok` on every node.
 */
export async function startRedisCluster(): Promise<TestRedisCluster> {
  const dir = await mkdtemp(join(tmpdir(), 'payonce-redis-cluster-'));
  const taken = new Set<number>();
  const ports: number[] = [];
  for (let i = 0; i < 3; i++) ports.push(await clusterPort(taken));
  const servers: ChildProcess[] = [];
  const clients: Cluster[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(clients.map((c) => c.quit().catch(() => c.disconnect())));
    await Promise.all(
      servers.map(async (server) => {
        if (server.exitCode !== null || server.signalCode !== null) return;
        const exited = once(server, 'exit');
        if (server.pid !== undefined) process.kill(server.pid, 'SIGTERM');
        await exited;
      }),
    );
    await rm(dir, { recursive: true, force: true });
  };
  try {
    for (const port of ports) {
      const nodeDir = join(dir, String(port));
      await run('mkdir', ['-p', nodeDir]);
      const args = ['--port', String(port), '--bind', '127.0.0.1', '--cluster-enabled', 'yes'];
      args.push('--cluster-config-file', join(nodeDir, 'nodes.conf'), '--dir', nodeDir);
      args.push('--save', '', '--appendonly', 'no', '--cluster-node-timeout', '5000', '--loglevel', 'warning');
      servers.push(spawn('redis-server', args, { stdio: 'ignore' }));
    }
    for (const port of ports)
      await untilReady(() => withNode(port, async (r) => (await r.ping()) === 'PONG'), `node ${port}`);
    await run('redis-cli', ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-yes'], {
      timeout: 30_000,
    });
    for (const port of ports) {
      await untilReady(
        () => withNode(port, async (r) => String(await r.cluster('INFO')).includes('cluster_state:ok')),
        `cluster state on ${port}`,
      );
    }
  } catch (error) {
    await stop();
    throw error;
  }
  const nodes = ports.map((port) => ({ host: '127.0.0.1', port }));
  return {
    nodes,
    client() {
      const client = new Cluster(nodes, { redisOptions: { maxRetriesPerRequest: 3, connectTimeout: 5_000 } });
      client.on('error', () => {});
      clients.push(client);
      return client;
    },
    stop,
  };
}

/** Deletes every key starting with `prefix` on every master of `cluster` (SCAN runs per node), returns the count. */
export async function deleteClusterKeysWithPrefix(cluster: Cluster, prefix: string): Promise<number> {
  let deleted = 0;
  for (const node of cluster.nodes('master')) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1_000);
      cursor = next;
      // One UNLINK per key: keys of different slots may not share a command in a cluster.
      for (const key of keys) deleted += await node.unlink(key);
    } while (cursor !== '0');
  }
  return deleted;
}
