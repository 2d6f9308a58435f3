import type { AddressInfo } from 'node:net';
import express from 'express';
import { expressClick } from '../../packages/payonce/src/providers/click/express-click.js';
import type { ClickMerchant } from '../../packages/payonce/src/providers/click/index.js';
import { type ClickBench, clickBench } from '../providers/click/click-harness.js';
import { type PaymeBackend, paymeNamespace as sqlNamespace } from '../providers/payme/payme-stores.js';
import type { AnswerRewrite } from './payme-merchant-app.js';

/** A served Click merchant: its Prepare and Complete URLs and how to stop it. */
export interface ServedClick {
  readonly prepareUrl: string;
  readonly completeUrl: string;
  close(): Promise<void>;
}

/** Serves `merchant` behind Express on 127.0.0.1 at `/click/prepare` and `/click/complete`; `rewrite` alters answers. */
export async function serveClick(merchant: ClickMerchant, rewrite?: AnswerRewrite): Promise<ServedClick> {
  const app = express();
  const paths = ['/click/prepare', '/click/complete'];
  if (rewrite === undefined) app.use(paths, expressClick(merchant));
  else {
    app.post(paths, express.raw({ type: () => true }), async (req, res) => {
      const answer = await merchant.handle({ rawBody: req.body as Buffer });
      res
        .status(answer.status)
        .set(answer.headers)
        .end(rewrite(answer.body, req.body as Buffer));
    });
  }
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/click`;
  return {
    prepareUrl: `${base}/prepare`,
    completeUrl: `${base}/complete`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * A broken merchant built on generic stored answers: the first answer with error 0 per (action, click_trans_id) is
 * stored and sent again for every later call with that pair, as a receipt store keyed by request would.
 */
export function staleClickReplay(): AnswerRewrite {
  const first = new Map<string, string>();
  return (body, rawBody) => {
    const form = new URLSearchParams(rawBody.toString('utf8'));
    const key = `${form.get('action')}:${form.get('click_trans_id')}`;
    const stored = first.get(key);
    if (stored !== undefined) return stored;
    if ((JSON.parse(body) as { error?: number }).error === 0) first.set(key, body);
    return body;
  };
}

/** A Click bench (test/providers/click) on a fresh namespace of `backend` (default SQLite) and a way to drop it. */
export async function clickBenchOn(
  backend: PaymeBackend = 'sqlite',
): Promise<{ bench: ClickBench; drop(): Promise<void> }> {
  const namespace = await sqlNamespace(backend);
  const store = await namespace.open();
  return { bench: clickBench(store), drop: () => namespace.drop() };
}

/** A broken merchant answering `error` `from` with `to`. */
export const recodeClick =
  (from: number, to: number): AnswerRewrite =>
  (body) => {
    const answer = JSON.parse(body) as { error?: number };
    if (answer.error === from) answer.error = to;
    return JSON.stringify(answer);
  };
