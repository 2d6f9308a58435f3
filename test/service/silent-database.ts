import { createServer, connect as dial, type Server, type Socket } from 'node:net';
import { afterEach, expect } from 'vitest';
import { findFreePort } from '../../packages/cli/src/demo/free-port.js';
import { type Answer, type Harness, startHarness } from './service-harness.js';

/**
 * A loopback TCP listener in front of the test database that starts silent — it accepts connections and never
 * writes a byte (a silent firewall drop, a frozen host) — and can be switched to forward new connections to the
 * database (`answer()`) or back to silent, stalling the connections already forwarded (`freeze()`).
 */
export async function silentDatabase(target: URL) {
  const port = await findFreePort();
  const sockets = new Set<Socket>();
  const pipes: (() => void)[] = [];
  let answering = false;
  const server: Server = createServer((client) => {
    sockets.add(client.on('error', () => {}));
    if (!answering) return;
    const upstream = dial({ host: target.hostname, port: Number(target.port) });
    sockets.add(upstream.on('error', () => {}));
    client.pipe(upstream);
    upstream.pipe(client);
    pipes.push(() => {
      client.unpipe(upstream);
      upstream.unpipe(client);
      client.pause();
      upstream.pause();
    });
  });
  await new Promise<void>((resolve) => server.listen({ host: '127.0.0.1', port }, resolve));
  const url = (database: string): string => {
    const copy = new URL(database);
    copy.hostname = '127.0.0.1';
    copy.port = String(port);
    return copy.toString();
  };
  return {
    url,
    answer: () => {
      answering = true;
    },
    freeze: () => {
      answering = false;
      for (const stall of pipes.splice(0)) stall();
    },
    async close(): Promise<void> {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A 503 problem+json `STORE_UNAVAILABLE` answer with a `Retry-After` of whole seconds. */
export function expectStoreUnavailable(answer: Answer, what: string): void {
  expect(answer.status, what).toBe(503);
  expect(answer.body.code, what).toBe('STORE_UNAVAILABLE');
  expect(answer.headers.get('retry-after'), what).toMatch(/^[1-9]\d*$/);
}

/** Registers cleanups run in reverse order after each test of the calling `describe`; returns the registrar. */
export function cleanupAfterEach(): (cleanup: () => Promise<void>) => void {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
  });
  return (cleanup) => void cleanups.push(cleanup);
}

/**
 * Registers cleanups run in reverse order when the calling test finishes (its context's `onTestFinished`): unlike
 * {@link cleanupAfterEach}, safe for concurrent tests, each of which drops only its own.
 */
export function cleanupWhenFinished(
  onTestFinished: (hook: () => Promise<void>) => void,
): (cleanup: () => Promise<void>) => void {
  const cleanups: (() => Promise<void>)[] = [];
  onTestFinished(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
  });
  return (cleanup) => void cleanups.push(cleanup);
}

/**
 * A service (`storeTimeoutMs` 300) on a fresh test database `ns` (its server on `defaultPort` when the URL has
 * none) reached through a {@link silentDatabase} listener, silent unless `answering`; all dropped by `defer`.
 */
export async function serviceBehindSilentDatabase(
  ns: { readonly url: string; drop(): Promise<void> },
  defaultPort: string,
  defer: (cleanup: () => Promise<void>) => void,
  answering = false,
): Promise<{ database: Awaited<ReturnType<typeof silentDatabase>>; h: Harness }> {
  defer(() => ns.drop());
  const target = new URL(ns.url);
  target.port ||= defaultPort;
  const database = await silentDatabase(target);
  defer(database.close);
  if (answering) database.answer();
  const h = await startHarness({ databaseUrl: database.url(ns.url), storeTimeoutMs: 300 });
  defer(h.close);
  return { database, h };
}
