import type { BenchBackend } from '../lib/namespaces.js';
import type { SubjectKind } from '../lib/subject.js';

/** How the webhook route of an HTTP row is guarded. */
export type HttpRouteName =
  | 'fastify-bare'
  | 'fastify-guard'
  | 'fastify-adapter'
  | 'express-bare'
  | 'express-adapter'
  | 'express-idempotency';

/** One HTTP row: a framework route on a backend. */
export interface HttpRow {
  readonly id: string;
  readonly route: HttpRouteName;
  readonly backend: BenchBackend;
  readonly kind: SubjectKind;
  readonly label: string;
  /** The bare route this row's ratio is taken against. */
  readonly baseline: HttpRouteName;
}

const LABELS: Record<HttpRouteName, { kind: SubjectKind; label: string; baseline: HttpRouteName }> = {
  'fastify-bare': { kind: 'bare', label: 'fastify route, bare two statements', baseline: 'fastify-bare' },
  'fastify-guard': { kind: 'payonce', label: 'fastify route + payonce guard.run', baseline: 'fastify-bare' },
  'fastify-adapter': {
    kind: 'payonce',
    label: 'fastify + payonce fastifyIdempotencyKey adapter',
    baseline: 'fastify-bare',
  },
  'express-bare': { kind: 'bare', label: 'express route, bare two statements', baseline: 'express-bare' },
  'express-adapter': {
    kind: 'payonce',
    label: 'express + payonce expressIdempotencyKey adapter',
    baseline: 'express-bare',
  },
  'express-idempotency': {
    kind: 'peer',
    label: 'express + express-idempotency (its in-memory adapter)',
    baseline: 'express-bare',
  },
};

/** The HTTP row of `route` on `backend`. */
export function httpRow(route: HttpRouteName, backend: BenchBackend): HttpRow {
  return { id: `${backend}/http:${route}`, route, backend, ...LABELS[route] };
}

/** Shared secret of the Standard Webhooks signatures (base64 of `payonce-bench-secret-0123456789`). */
export const WEBHOOK_SECRET = `whsec_${Buffer.from('payonce-bench-secret-0123456789').toString('base64')}`;

/** Messages between the bench and an HTTP server child. */
export type ServerMessage =
  | { readonly type: 'listening'; readonly port: number }
  | { readonly type: 'runs'; readonly runs: number }
  | { readonly type: 'failed'; readonly error: string };
export type ParentMessage = { readonly type: 'runs' } | { readonly type: 'reset' } | { readonly type: 'close' };
