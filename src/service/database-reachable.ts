import { sql } from 'kysely';
import type { ServiceContext } from './service-context.js';

/**
 * True when the service's database answers `select 1` within `config.storeTimeoutMs` milliseconds; false when it
 * fails or does not answer in time. Never throws.
 */
export async function databaseReachable(ctx: Pick<ServiceContext, 'store' | 'config'>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      sql`select 1`.execute(ctx.store.db),
      new Promise((_resolve, reject) => {
        timer = setTimeout(() => reject(new Error('database check timed out')), ctx.config.storeTimeoutMs);
      }),
    ]);
    return true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
