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

/** The key provider {@link storedPaymeKeys} returns: the stored keys, and whether they still are `initialKeys`. */
export interface StoredPaymeKeys extends PaymeKeyProvider {
  /**
   * Whether the table holds a key other than the `initialKeys` given now — after a `ChangePassword`, or because
   * `initialKeys` changed (a new `PAYME_KEY`) against a database seeded earlier. Then the stored key is the one
   * that authorises calls and `initialKeys` are ignored: Payme's calls signed with them get -32504. Check it at
   * start-up and warn; it never reveals a key. Seeds the table first if this is the first start.
   */
  initialKeysIgnored(): Promise<boolean>;
}

/**
 * A {@link PaymeKeyProvider} keeping the keys in `payonce_payme_keys` (migration group `payme`) on `store`'s database:
 * every call reads them (one indexed query), and `ChangePassword` updates the row of the key it was authorised
 * with, so every replica accepts the new key from its next call, and a restart keeps it.
 * `initialKeys` are stored on the first start only; `initialKeysIgnored()` tells when the stored ones differ.
 * @throws {InvalidOption} (`initialKeys`) no key or an empty one; (`cashbox`) not 1–60 characters.
 * @see https://developer.help.paycom.uz/metody-merchant-api/changepassword
 * @example
 * const keys = storedPaymeKeys(store, { initialKeys: process.env.PAYME_KEY! });
 * if (await keys.initialKeysIgnored()) console.warn('payonce_payme_keys holds another Payme key: it is used, not PAYME_KEY');
 */
export function storedPaymeKeys<DB>(store: SqlStore<DB>, options: StoredPaymeKeysOptions): StoredPaymeKeys {
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
    async initialKeysIgnored() {
      if (!seeded) await seed();
      const stored = new Map((await rows()).map((row) => [row.cashbox, row.merchant_key]));
      return names.some((name, index) => stored.get(name) !== initial[index]);
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
