/**
 * Child of close-ends-pool.test.ts: opens a store with `connect()`, makes one claim and one completion (statements
 * that run straight on the pool, never through Kysely), closes the store and returns from the module. The process
 * must then exit on its own: anything still holding the pool open keeps it alive.
 */
import { RequestKey } from '../../../../packages/payonce/src/core/request-key.js';
import { MysqlStore } from '../../../../packages/payonce/src/stores/mysql/mysql-store.js';
import { PostgresStore } from '../../../../packages/payonce/src/stores/postgres/postgres-store.js';

const [dialect, url, externalId] = process.argv.slice(2) as ['postgres' | 'mysql', string, string];
const store = dialect === 'postgres' ? await PostgresStore.connect(url) : await MysqlStore.connect(url);
const key = new RequestKey('close', externalId);
const claimed = await store.insertClaim({ key, nowMs: Date.now(), fingerprint: null });
const response = { status: 200, headers: {}, body: new Uint8Array() };
const completed = await store.complete({ key, attempt: claimed.receipt.attempts, nowMs: Date.now(), response });
await store.close();
process.stdout.write(`${JSON.stringify({ inserted: claimed.inserted, completed })}\n`);
