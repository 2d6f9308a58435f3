import type { IdempotencyConfig } from '@aws-lambda-powertools/idempotency';
import type { MemoryStorageAdapter } from '@node-idempotency/storage-adapter-memory';
import type { RedisStorageAdapter } from '@node-idempotency/storage-adapter-redis';
import type { NamespaceInfo } from '../lib/namespaces.js';
import { type Deliverer, HANDLER_RESPONSE, type HandlerCounter, payloadOf, type Subject } from '../lib/subject.js';

// Peer libraries are imported when their row first opens, so the rows before them run without their footprint.

/**
 * `@node-idempotency/core` driven as its framework interceptors drive it: `onRequest` (SET NX of an IN_PROGRESS
 * record, else GET of the stored one), the handler, then `onResponse` (SET of the COMPLETE record with the response).
 */
async function openNodeIdempotency(
  adapter: MemoryStorageAdapter | RedisStorageAdapter,
  prefix: string,
  counter: HandlerCounter,
  close: () => Promise<void>,
): Promise<Deliverer> {
  const { Idempotency, IdempotencyError, IdempotencyErrorCodes } = await import('@node-idempotency/core');
  const idempotency = new Idempotency(adapter, { cacheKeyPrefix: `${prefix}node-idempotency` });
  return {
    async deliver(id) {
      const request = {
        headers: { 'idempotency-key': id },
        path: '/webhook',
        method: 'POST',
        body: JSON.parse(payloadOf(id)) as Record<string, unknown>,
      };
      try {
        const cached = await idempotency.onRequest(request);
        if (cached) return 'replayed';
      } catch (error) {
        if (error instanceof IdempotencyError && error.code === IdempotencyErrorCodes.REQUEST_IN_PROGRESS) {
          return 'in-progress';
        }
        throw error;
      }
      counter.runs++;
      await idempotency.onResponse(request, {
        body: HANDLER_RESPONSE.body,
        additional: { status: HANDLER_RESPONSE.status, headers: HANDLER_RESPONSE.headers },
      });
      return 'ran';
    },
    close,
  };
}

/** `@node-idempotency/core` with its memory storage adapter. */
export const nodeIdempotencyMemory: Subject = {
  id: 'memory/node-idempotency',
  backend: 'memory',
  kind: 'peer',
  label: '@node-idempotency/core + storage-adapter-memory',
  async open(_ns, counter) {
    const { MemoryStorageAdapter } = await import('@node-idempotency/storage-adapter-memory');
    return openNodeIdempotency(new MemoryStorageAdapter(), '', counter, async () => {});
  },
};

/** `@node-idempotency/core` with its Redis storage adapter (node-redis 4). */
export const nodeIdempotencyRedis: Subject = {
  id: 'redis/node-idempotency',
  backend: 'redis',
  kind: 'peer',
  label: '@node-idempotency/core + storage-adapter-redis',
  async open(ns: NamespaceInfo, counter) {
    const { RedisStorageAdapter } = await import('@node-idempotency/storage-adapter-redis');
    const adapter = new RedisStorageAdapter({ url: ns.redis!.url });
    await adapter.connect();
    return openNodeIdempotency(adapter, ns.redis!.prefix, counter, () => adapter.disconnect());
  },
};

type LambdaContext = Parameters<IdempotencyConfig['registerLambdaContext']>[0];

/** The part of a Lambda `Context` Powertools reads (`getRemainingTimeInMillis`), for a plain Node process. */
function lambdaContext(remainingMs: number): LambdaContext {
  const context: Partial<LambdaContext> = {
    functionName: 'payonce-bench',
    awsRequestId: 'bench',
    getRemainingTimeInMillis: () => remainingMs,
  };
  return context as LambdaContext;
}

interface BenchEvent {
  readonly id: string;
  readonly body: string;
}

/**
 * `@aws-lambda-powertools/idempotency` `makeIdempotent` with its Redis/Valkey `CachePersistenceLayer` on a connected
 * `@redis/client`, keyed by the event id (`eventKeyJmesPath: 'id'`), with a registered Lambda-like context.
 */
export const powertoolsRedis: Subject = {
  id: 'redis/powertools',
  backend: 'redis',
  kind: 'peer',
  label: '@aws-lambda-powertools/idempotency + CachePersistenceLayer (@redis/client)',
  async open(ns: NamespaceInfo, counter) {
    const { IdempotencyAlreadyInProgressError, IdempotencyConfig, makeIdempotent } = await import(
      '@aws-lambda-powertools/idempotency'
    );
    const { CachePersistenceLayer } = await import('@aws-lambda-powertools/idempotency/cache');
    const { createClient } = await import('@redis/client');
    const client = await createClient({ url: ns.redis!.url }).connect();
    const ran = new WeakSet<BenchEvent>();
    const config = new IdempotencyConfig({ eventKeyJmesPath: 'id' });
    // What a Lambda user's `config.registerLambdaContext(context)` provides: the time left in the invocation, which
    // bounds an INPROGRESS record (without it every INPROGRESS record looks orphaned and is taken over at once).
    config.registerLambdaContext(lambdaContext(300_000));
    const handle = makeIdempotent(
      async (event: BenchEvent) => {
        ran.add(event);
        counter.runs++;
        return HANDLER_RESPONSE;
      },
      {
        persistenceStore: new CachePersistenceLayer({ client }),
        config,
        keyPrefix: `${ns.redis!.prefix}powertools`,
      },
    );
    return {
      async deliver(id) {
        const event: BenchEvent = { id, body: payloadOf(id) };
        try {
          await handle(event);
        } catch (error) {
          if (error instanceof IdempotencyAlreadyInProgressError) return 'in-progress';
          throw error;
        }
        return ran.has(event) ? 'ran' : 'replayed';
      },
      async close() {
        await client.quit();
      },
    };
  },
};
