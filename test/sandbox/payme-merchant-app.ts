import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { expressPayme } from '../../packages/payonce/src/providers/payme/express-payme.js';
import type { PaymeMerchant } from '../../packages/payonce/src/providers/payme/index.js';
import type { SqlStore } from '../../packages/payonce/src/stores/sql/sql-store.js';
import { type PaymeBench, paymeBench } from '../providers/payme/payme-harness.js';
import { type PaymeBackend, paymeNamespace } from '../providers/payme/payme-stores.js';

/** Rewrites a merchant's answer body before it is sent (to play a broken merchant). */
export type AnswerRewrite = (body: string, rawBody: Buffer) => string;

/** A served app: its URL and how to stop it. */
export interface ServedApp {
  readonly url: string;
  close(): Promise<void>;
}

/** Serves `merchant` behind Express on 127.0.0.1 at `/payme`; with `rewrite`, its answers pass through it. */
export async function serveMerchant(merchant: PaymeMerchant, rewrite?: AnswerRewrite): Promise<ServedApp> {
  const app = express();
  if (rewrite === undefined) app.use('/payme', expressPayme(merchant));
  else {
    app.post('/payme', express.raw({ type: () => true }), async (req, res) => {
      const answer = await merchant.handle({ rawBody: req.body as Buffer, headers: req.headers });
      res
        .status(answer.status)
        .set(answer.headers)
        .end(rewrite(answer.body, req.body as Buffer));
    });
  }
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/payme`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A loopback URL nothing listens on: a port that was just opened and closed again (connecting is refused). */
export async function closedUrl(path: string): Promise<string> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}${path}`;
}

/**
 * A server answering every request HTTP 200 with an HTML page (a web app's sign-in page where the endpoint should
 * be), at `http://127.0.0.1:<port>/`; every path under it answers the same.
 */
export async function serveHtmlPage(): Promise<ServedApp> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!DOCTYPE html><html><body>Sign in</body></html>');
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * A broken merchant that replays stale answers: the first answer per (method, params.id) is stored and sent again
 * for every later call with that pair, as a generic receipt store keyed by request would.
 */
export function staleReplay(): AnswerRewrite {
  const first = new Map<string, string>();
  return (body, rawBody) => {
    let key: string;
    try {
      const call = JSON.parse(rawBody.toString('utf8')) as { method?: string; params?: { id?: string } };
      if (call.params?.id === undefined) return body;
      key = `${call.method}:${call.params.id}`;
    } catch {
      return body;
    }
    const stored = first.get(key);
    if (stored !== undefined) return stored;
    first.set(key, body);
    return body;
  };
}

/** A broken merchant answering error `from` with code `to`. */
export const recode =
  (from: number, to: number): AnswerRewrite =>
  (body) => {
    const answer = JSON.parse(body) as { error?: { code: number } };
    if (answer.error?.code === from) answer.error.code = to;
    return JSON.stringify(answer);
  };

/** A Payme bench (test/providers/payme) on a fresh namespace of `backend` (default SQLite) and a way to drop it. */
export async function paymeBenchOn(
  backend: PaymeBackend = 'sqlite',
): Promise<{ bench: PaymeBench; store: SqlStore<unknown>; drop(): Promise<void> }> {
  const namespace = await paymeNamespace(backend);
  const store = await namespace.open();
  return { bench: paymeBench(store), store, drop: () => namespace.drop() };
}
