import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Webhook } from 'standardwebhooks';
import { Pool } from 'undici';
import type { Deliver } from '../lib/measure.js';
import type { NamespaceInfo } from '../lib/namespaces.js';
import { payonceNodeArgs } from '../lib/side-node-args.js';
import { payloadOf } from '../lib/subject.js';
import { type HttpRouteName, type ParentMessage, type ServerMessage, WEBHOOK_SECRET } from './http-routes.js';

const SERVER = fileURLToPath(new URL('./server.ts', import.meta.url));

/**
 * The HTTP rows' machinery, used by the HTTP side (`http-side.ts`): a server child per route (`server.ts`, its own
 * process, so the load generator does not share its event loop), deliveries signed ahead of the timed run, and an
 * undici client over keep-alive connections.
 */

/** A running server child. */
export interface Server {
  readonly origin: string;
  /** The server child's process id (for its CPU in /proc, or a profiler). */
  readonly pid: number;
  ask(message: ParentMessage): Promise<number>;
  stop(): Promise<void>;
}

/**
 * Starts the server child of `route` on namespace `ns`; resolves once it listens on a loopback port. `nodeArgs` are
 * added to the child's node options (e.g. `--perf-basic-prof` for a `perf` profile).
 */
export async function startServer(
  route: HttpRouteName,
  ns: NamespaceInfo,
  nodeArgs: readonly string[] = [],
): Promise<Server> {
  const child: ChildProcess = fork(SERVER, [JSON.stringify({ route, ns })], {
    execArgv: [...payonceNodeArgs(), ...nodeArgs],
    env: { ...process.env, NODE_ENV: 'production' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const next = () =>
    new Promise<ServerMessage>((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`server ${route} exited with ${code}`));
      child.once('exit', onExit);
      child.once('message', (message: ServerMessage) => {
        child.off('exit', onExit);
        resolve(message);
      });
    });
  const first = await next();
  if (first.type !== 'listening') {
    child.kill();
    throw new Error(first.type === 'failed' ? first.error : `unexpected ${first.type}`);
  }
  return {
    origin: `http://127.0.0.1:${first.port}`,
    pid: child.pid!,
    async ask(message) {
      const reply = next();
      child.send(message);
      const answer = await reply;
      return answer.type === 'runs' ? answer.runs : Number.NaN;
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.send({ type: 'close' } satisfies ParentMessage);
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

export interface Signed {
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** One signed delivery of event `id` (Standard Webhooks headers plus the Idempotency-Key header). */
export function signOne(webhook: Webhook, id: string, now: Date): Signed {
  const body = payloadOf(id);
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(now.getTime() / 1_000)),
      'webhook-signature': webhook.sign(id, now, body),
      'idempotency-key': `"${id}"`,
    },
  };
}

/** Signs the deliveries of ids `${prefix}0 … ${prefix}${count - 1}` ahead of the timed run (client cost excluded). */
export function sign(prefix: string, count: number): Map<string, Signed> {
  const webhook = new Webhook(WEBHOOK_SECRET);
  const now = new Date();
  const signed = new Map<string, Signed>();
  for (let i = 0; i < count; i++) signed.set(`${prefix}${i}`, signOne(webhook, `${prefix}${i}`, now));
  return signed;
}

/** Signs each delivery when it is sent (for untimed warm-ups, where the client's cost does not matter). */
export function signOnTheFly(): { get(id: string): Signed } {
  const webhook = new Webhook(WEBHOOK_SECRET);
  const now = new Date();
  return { get: (id) => signOne(webhook, id, now) };
}

/** A client delivering signed requests (`signed.get(id)`) over `connections` keep-alive connections (undici). */
export function client(
  origin: string,
  connections: number,
  signed: { get(id: string): Signed | undefined },
): { deliver: Deliver; close(): Promise<void> } {
  const pool = new Pool(origin, { connections, pipelining: 1 });
  return {
    async deliver(id) {
      const request = signed.get(id);
      if (!request) throw new Error(`unsigned id ${id}`);
      const response = await pool.request({
        path: '/webhook',
        method: 'POST',
        headers: request.headers,
        body: request.body,
      });
      await response.body.dump();
      if (response.statusCode === 409) return 'in-progress';
      if (response.statusCode >= 200 && response.statusCode < 300) return 'ran';
      throw new Error(`HTTP ${response.statusCode}`);
    },
    close: () => pool.close(),
  };
}
