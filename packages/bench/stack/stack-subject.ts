import { RequestInProgress } from 'payonce/internal/core/errors.js';
import { IdempotencyGuard } from 'payonce/internal/core/idempotency-guard.js';
import { RequestKey } from 'payonce/internal/core/request-key.js';
import { PostgresStore } from 'payonce/internal/stores/postgres/postgres-store.js';
import { Outbox } from 'payonce/outbox';
import type { NamespaceInfo } from '../lib/namespaces.js';
import { type Deliverer, HANDLER_RESPONSE, type HandlerCounter, payloadOf, type Subject } from '../lib/subject.js';
import { STACK_SIDES } from './sides/index.js';
import { ownSide } from './sides/own.js';
import { type LedgerDatabase, POOL_SIZE, type StackSide, type StackWork } from './stack-side.js';

/** The outbox topic of every side's job (a neutral placeholder). */
export const OUTBOX_TOPIC = 'bench.ledger';

/**
 * The side registered as `name`: `own` (payonce's own transaction, side B of every target) or a key of
 * `STACK_SIDES`.
 * @throws {Error} for an unknown name, listing the known ones.
 */
export function stackSideNamed(name: string, sides: Readonly<Record<string, StackSide>> = STACK_SIDES): StackSide {
  if (name === 'own') return ownSide;
  const side = Object.hasOwn(sides, name) ? sides[name] : undefined;
  if (side === undefined) throw new Error(`unknown stack side ${name}; known: own, ${Object.keys(sides).join(', ')}`);
  return side;
}

/** The work every side does in its transaction, on `store`, counting handler runs in `counter`. */
function stackWork(ns: NamespaceInfo, store: PostgresStore<LedgerDatabase>, counter: HandlerCounter): StackWork {
  const outbox = new Outbox(store);
  return {
    guard: new IdempotencyGuard(store),
    pool: { ...ns.postgres!, max: POOL_SIZE },
    key: (id) => new RequestKey('bench', id),
    options: (id) => ({ payload: payloadOf(id) }),
    async finish(payonceTx, id) {
      await outbox.enqueueOnce(payonceTx, OUTBOX_TOPIC, id, { id });
      counter.runs++;
      return HANDLER_RESPONSE;
    },
  };
}

/**
 * The subject `postgres/stack-<name>` (`subjects/load-subject.ts`): one delivery = the one-commit path of
 * `stack/stack-side.ts` through the side `name`. The guard's store (`PostgresStore.connect`, pool of `POOL_SIZE`,
 * connections opened lazily) carries the transactions of the `own` side only; on a stack side every statement of
 * payonce joins the stack's transaction, so that pool stays empty and the stack's pool of the same size carries them.
 * @throws {Error} for an unknown `name` (see {@link stackSideNamed}).
 */
export function stackSubject(name: string): Subject {
  const side = stackSideNamed(name);
  return {
    id: `postgres/stack-${name}`,
    backend: side.backend,
    kind: 'payonce',
    label: side.label,
    async open(ns, counter): Promise<Deliverer> {
      const store = await PostgresStore.connect<LedgerDatabase>({ ...ns.postgres!, max: POOL_SIZE });
      const runner = await side.open(ns, stackWork(ns, store, counter)).catch(async (error: unknown) => {
        await store.close();
        throw error;
      });
      return {
        async deliver(id) {
          try {
            return (await runner.deliver(id)).isReplay ? 'replayed' : 'ran';
          } catch (error) {
            if (error instanceof RequestInProgress) return 'in-progress';
            throw error;
          }
        },
        async close() {
          await runner.close();
          await store.close();
        },
      };
    },
  };
}
