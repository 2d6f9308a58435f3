import { sql } from 'kysely';
import type { ServiceContext } from './service-context.js';
import { withinMs } from './within-ms.js';

/**
 * True when the service's database answers `select 1` within `config.storeTimeoutMs` milliseconds; false when it
 * fails or does not answer in time. Never throws.
 */
export async function databaseReachable(ctx: Pick<ServiceContext, 'store' | 'config'>): Promise<boolean> {
  try {
    await withinMs(sql`select 1`.execute(ctx.store.db), ctx.config.storeTimeoutMs, 'database check');
    return true;
  } catch {
    return false;
  }
}
