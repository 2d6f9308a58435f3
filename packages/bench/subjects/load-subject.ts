import type { BenchBackend } from '../lib/namespaces.js';
import type { Subject } from '../lib/subject.js';

/**
 * The subject of row `id`, importing only the module that implements it: a side's process (see
 * `lib/subject-side.ts`) must not load other rows' drivers, stores or peer libraries, so its RSS is its own.
 * Ids: `<backend>/bare`, `<backend>/payonce`, `<backend>/payonce-batched`, `<backend>/payonce-otel` (with an OTel
 * SDK registered; `-traced`: every call inside a sampled trace), `postgres|redis/payonce-base` (the build before OpenTelemetry), `redis/payonce-uncorked`, `postgres/bare-tx`,
 * `postgres/payonce-tx`, `postgres/stack-<name>` (`stack/sides/`) and the peers' ids (`memory/node-idempotency`, `redis/node-idempotency`, `redis/powertools`).
 * @throws {Error} for an unknown id.
 */
export async function loadSubject(id: string): Promise<Subject> {
  const [backend, row] = id.split('/') as [BenchBackend, string];
  if (id === 'postgres/bare-tx') return (await import('./bare.js')).bareTransactionSubject();
  if (row === 'bare') return (await import('./bare.js')).bareSubject(backend);
  if (row === 'payonce') return (await import('./payonce.js')).payonceSubject(backend);
  if (row === 'payonce-batched') return (await import('./payonce.js')).payonceSubject(backend, { batched: true });
  if (row === 'payonce-otel') return (await import('./payonce-otel.js')).payonceOtelSubject(backend);
  if (row === 'payonce-otel-traced') return (await import('./payonce-otel.js')).payonceOtelSubject(backend, true);
  if (row === 'payonce-base') return (await import('./payonce-base.js')).payonceBaseSubject(backend);
  if (id === 'redis/payonce-uncorked')
    return (await import('./payonce.js')).payonceSubject(backend, { uncorked: true });
  if (id === 'postgres/payonce-tx') return (await import('./payonce.js')).payonceTransactionSubject();
  if (backend === 'postgres' && row.startsWith('stack-'))
    return (await import('../stack/stack-subject.js')).stackSubject(row.slice('stack-'.length));
  const peers = await import('./peers.js');
  const peer = [peers.nodeIdempotencyMemory, peers.nodeIdempotencyRedis, peers.powertoolsRedis].find(
    (s) => s.id === id,
  );
  if (!peer) throw new Error(`unknown bench row ${id}`);
  return peer;
}
