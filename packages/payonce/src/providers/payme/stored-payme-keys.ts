import type { Clock } from '../../core/clock.js';
import { systemClock } from '../../core/clock.js';
import { InvalidOption } from '../../core/errors.js';
import { insertUnlessDuplicate } from '../../outbox/insert-unless-duplicate.js';
import type { SqlStore } from '../../stores/sql/sql-store.js';
import { tablesOf } from '../../stores/sql/table-namespace.js';
import { checkPaymeKeys } from './memory-payme-keys.js';
import type { PaymeKeyProvider } from './payme-key-provider.js';
import { PAYME_KEYS_TABLE, type PaymeDatabase } from './payme-tables.js';

/** Options of {@link storedPaymeKeys}. */
export interface StoredPaymeKeysOptions {
  /**
   * The key(s) to store when the table holds none yet (the first start); later starts read the stored ones, so a key
   * changed by `ChangePassword` survives restarts. One row per key, named `<cashbox>` and `<cashbox>#2`, ….
   */
  readonly initialKeys: string | readonly string[];
  /** Name of the cashbox, for several cashboxes on one database (1–60 characters). @default 'default' */
  readonly cashbox?: string;
  /** @default systemClock */
  readonly clock?: Clock;
}

/**
 * A {@link PaymeKeyProvider} keeping the keys in `payonce_payme_keys` (migration group `payme`) on `store`'s database:
 * every call reads them (one indexed query), and `ChangePassword` updates the row of the key it was authorised
 * with, so every replica accepts the new key from its next call, and a restart keeps it.
 * @throws {InvalidOption} (`initialKeys`) no key or an empty one; (`cashbox`) not 1–60 characters.
 * @see https://developer.help.paycom.uz/metody-merchant-api/changepassword
 */
export function storedPaymeKeys<DB>(store: SqlStore<DB>, options: StoredPaymeKeysOptions): PaymeKeyProvider {
  const initial = checkPaymeKeys(options?.initialKeys, 'initialKeys');
  const cashbox = options.cashbox ?? 'default';
  if (typeof cashbox !== 'string' || cashbox.length === 0 || cashbox.length > 60) {
    throw new InvalidOption('cashbox', 'must be 1-60 characters');
  }
  const clock = options.clock ?? systemClock;
  const names = initial.map((_key, index) => (index === 0 ? cashbox : `${cashbox}#${index + 1}`));
  const db = () => tablesOf<PaymeDatabase>(store);
  let seeded = false;

  async function seed(): Promise<void> {
    for (const [index, key] of initial.entries()) {
      const row = { cashbox: names[index] as string, merchant_key: key, updated_at: clock.now() };
      await insertUnlessDuplicate(store.dialect, db().insertInto(PAYME_KEYS_TABLE).values(row));
    }
    seeded = true;
  }

  async function rows() {
    return db()
      .selectFrom(PAYME_KEYS_TABLE)
      .select(['cashbox', 'merchant_key'])
      .where('cashbox', 'in', names)
      .orderBy('cashbox')
      .execute();
  }

  return {
    async keys() {
      if (!seeded) await seed();
      return (await rows()).map((row) => row.merchant_key);
    },
    async changeKey(currentKey, newKey) {
      const row = (await rows()).find((candidate) => candidate.merchant_key === currentKey);
      if (row === undefined) return;
      await db()
        .updateTable(PAYME_KEYS_TABLE)
        .set({ merchant_key: newKey, updated_at: clock.now() })
        .where('cashbox', '=', row.cashbox)
        .execute();
    },
  };
}
