import type { AddressInfo } from 'node:net';
import express from 'express';
import { expressUzum } from '../../packages/payonce/src/providers/uzum/express-uzum.js';
import type { UzumMerchant } from '../../packages/payonce/src/providers/uzum/index.js';
import { type PaymeBackend, paymeNamespace as sqlNamespace } from '../providers/payme/payme-stores.js';
import { type UzumBench, uzumBench } from '../providers/uzum/uzum-harness.js';

/** Rewrites an answer (status and body) before it is sent, knowing the path and request body (a broken merchant). */
export type UzumRewrite = (answer: { status: number; body: string }, path: string, rawBody: Buffer) => typeof answer;

/** A served Uzum merchant: the base URL of its webhooks and how to stop it. */
export interface ServedUzum {
  readonly url: string;
  close(): Promise<void>;
}

/** Serves `merchant` behind Express on 127.0.0.1 under `/uzum`; with `rewrite`, its answers pass through it. */
export async function serveUzum(merchant: UzumMerchant, rewrite?: UzumRewrite): Promise<ServedUzum> {
  const app = express();
  if (rewrite === undefined) app.use('/uzum', expressUzum(merchant));
  else {
    app.post('/uzum/:operation', express.raw({ type: () => true }), async (req, res) => {
      const answer = await merchant.handle({ path: req.path, rawBody: req.body as Buffer, headers: req.headers });
      const sent = rewrite({ status: answer.status, body: answer.body }, req.path, req.body as Buffer);
      res.status(sent.status).set(answer.headers).end(sent.body);
    });
  }
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/uzum`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * A broken merchant built on generic stored answers: the first successful (HTTP 200) answer per (path, transId) is
 * stored and sent again for every later call with that pair, as a receipt store keyed by request would.
 */
export function staleUzumReplay(): UzumRewrite {
  const first = new Map<string, { status: number; body: string }>();
  return (answer, path, rawBody) => {
    const transId = (JSON.parse(rawBody.toString('utf8')) as { transId?: string }).transId;
    if (transId === undefined) return answer;
    const key = `${path}:${transId}`;
    const stored = first.get(key);
    if (stored !== undefined) return stored;
    if (answer.status === 200) first.set(key, answer);
    return answer;
  };
}

/** A broken merchant answering errorCode `from` with `to`. */
export const recodeUzum =
  (from: string, to: string): UzumRewrite =>
  (answer) => {
    const body = JSON.parse(answer.body) as { errorCode?: string };
    if (body.errorCode === from) body.errorCode = to;
    return { status: answer.status, body: JSON.stringify(body) };
  };

/** A Uzum bench (test/providers/uzum) on a fresh namespace of `backend` (default SQLite) and a way to drop it. */
export async function uzumBenchOn(
  backend: PaymeBackend = 'sqlite',
): Promise<{ bench: UzumBench; drop(): Promise<void> }> {
  const namespace = await sqlNamespace(backend);
  const store = await namespace.open();
  return { bench: uzumBench(store), drop: () => namespace.drop() };
}
