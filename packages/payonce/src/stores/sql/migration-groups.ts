import { InvalidOption } from '../../core/errors.js';
import { ALL_MIGRATIONS } from './migrations/all-migrations.js';

/**
 * A named part of payonce's schema that `migrate({ only })` and `payonce migrate --only` can create on its own:
 * - `receipts`: `payonce_receipts` (webhook receipts and Idempotency-Key records; on PostgreSQL the finish trigger),
 *   `payonce_receipt_trace`;
 * - `http`: Idempotency-Key records, which live in `payonce_receipts`: the same as `receipts`;
 * - `outbox`: `payonce_outbox`, `payonce_effects`, `payonce_outbox_order` (on PostgreSQL its `…_seq_seq` sequence),
 *   `payonce_outbox_trace`;
 * - `journal`: `payonce_webhook_deliveries` (the webhook delivery journal);
 * - `payments`: `payonce_orders`, `payonce_payment_attempts`, `payonce_payment_events`, `payonce_payment_refunds`,
 *   `payonce_payment_attempt_trace`;
 * - `service`: the reference service's `payonce_service_fulfilments`, `payonce_service_refunds`,
 *   `payonce_admin_actions`, `payonce_service_order_traces`;
 * - `payme`: the Payme Merchant API engine's `payonce_payme_transactions` and `payonce_payme_keys` (`payonce/payme`);
 * - `click`: the Click SHOP API engine's `payonce_click_transactions` (`payonce/click`);
 * - `uzum`: the Uzum Bank Merchant API engine's `payonce_uzum_transactions` (`payonce/uzum`);
 * - `telegram`: the Telegram Payments engine's `payonce_telegram_charges` (`TelegramPayments`, `payonce/telegram`);
 *   a bot without payments needs `receipts` (and `journal` for the webhook delivery journal) only.
 */
export type MigrationGroup =
  | 'receipts'
  | 'http'
  | 'outbox'
  | 'journal'
  | 'payments'
  | 'service'
  | 'payme'
  | 'click'
  | 'uzum'
  | 'telegram';

/** Every `MigrationGroup`, in the order `payonce migrate --only` lists them. */
export const MIGRATION_GROUPS: readonly MigrationGroup[] = Object.freeze([
  'receipts',
  'http',
  'outbox',
  'journal',
  'payments',
  'service',
  'payme',
  'click',
  'uzum',
  'telegram',
]);

interface GroupDefinition {
  /** The released migrations that belong to this group (each migration belongs to exactly one group). */
  readonly migrations: readonly string[];
  /** Groups whose tables this group's code also uses, with why. */
  readonly needs: readonly { readonly group: MigrationGroup; readonly because: string }[];
}

const GROUPS: Readonly<Record<MigrationGroup, GroupDefinition>> = Object.freeze({
  receipts: {
    migrations: ['0001-receipts', '0005-receipts-provider-purge', '0009-receipts-finish-notify', '0018-receipt-trace'],
    needs: [],
  },
  http: {
    migrations: [],
    needs: [{ group: 'receipts', because: 'Idempotency-Key records are kept in payonce_receipts' }],
  },
  outbox: { migrations: ['0003-outbox', '0008-outbox-order', '0016-outbox-trace'], needs: [] },
  journal: { migrations: ['0004-webhook-deliveries'], needs: [] },
  payments: {
    migrations: ['0002-payments', '0010-payment-refunds', '0017-payment-attempt-trace'],
    needs: [
      { group: 'receipts', because: 'a provider event is recorded as a receipt' },
      { group: 'outbox', because: 'a paid or refunded order enqueues an outbox job' },
    ],
  },
  service: {
    migrations: ['0006-service-fulfilments', '0007-admin-actions', '0014-service-order-traces'],
    needs: [
      { group: 'payments', because: 'the service sells orders through payments' },
      { group: 'journal', because: 'the service journals every webhook delivery' },
    ],
  },
  payme: {
    migrations: ['0011-payme'],
    needs: [{ group: 'outbox', because: 'a performed Payme transaction enqueues its fulfilment in the outbox' }],
  },
  click: {
    migrations: ['0012-click'],
    needs: [{ group: 'outbox', because: 'a completed Click transaction enqueues its fulfilment in the outbox' }],
  },
  uzum: {
    migrations: ['0013-uzum'],
    needs: [{ group: 'outbox', because: 'a confirmed Uzum transaction enqueues its fulfilment in the outbox' }],
  },
  telegram: {
    migrations: ['0015-telegram-charges'],
    needs: [{ group: 'payments', because: 'a Telegram payment is an attempt of a payments order' }],
  },
});

/** A group `selectMigrations` added because a selected group needs it. */
export interface PulledInGroup {
  /** The group added. */
  readonly group: MigrationGroup;
  /** The selected group that needs it. */
  readonly neededBy: MigrationGroup;
  /** Why, in words: `a provider event is recorded as a receipt`. */
  readonly because: string;
}

/** What `only` resolves to: the groups (named and pulled in) and their migrations, oldest first. */
export interface MigrationSelection {
  /** Every group selected, named or pulled in, in `MIGRATION_GROUPS` order. */
  readonly groups: readonly MigrationGroup[];
  /** Groups not named but added because a named (or added) group needs them, in the order they were added. */
  readonly pulledIn: readonly PulledInGroup[];
  /** Names of the migrations of `groups`, oldest first. */
  readonly migrations: readonly string[];
}

function isGroup(name: unknown): name is MigrationGroup {
  return typeof name === 'string' && Object.hasOwn(GROUPS, name);
}

const EXPECTED = `expected one or more of ${MIGRATION_GROUPS.join(', ')}`;

/**
 * Resolves `only` (`undefined`: every group) to the groups and migrations to apply: each named group, plus the
 * groups it needs, transitively (`payments` pulls in `receipts` and `outbox`; `http` is `receipts`).
 * @throws {InvalidOption} (`only`) when `only` is not an array, is empty, or names an unknown group.
 * @see docs/your-stack.md "Migration tools".
 */
export function selectMigrations(only?: readonly MigrationGroup[]): MigrationSelection {
  const named: readonly unknown[] = only === undefined ? MIGRATION_GROUPS : only;
  if (!Array.isArray(named)) throw new InvalidOption('only', `must be an array of group names; ${EXPECTED}`);
  if (named.length === 0) throw new InvalidOption('only', `names no group; ${EXPECTED}`);
  for (const name of named) {
    if (!isGroup(name)) throw new InvalidOption('only', `unknown migration group "${String(name)}"; ${EXPECTED}`);
  }
  const selected = new Set<MigrationGroup>(named as readonly MigrationGroup[]);
  const pulledIn: PulledInGroup[] = [];
  const queue = [...selected];
  for (let group = queue.shift(); group !== undefined; group = queue.shift()) {
    for (const need of GROUPS[group].needs) {
      if (selected.has(need.group)) continue;
      selected.add(need.group);
      pulledIn.push(Object.freeze({ group: need.group, neededBy: group, because: need.because }));
      queue.push(need.group);
    }
  }
  const groups = MIGRATION_GROUPS.filter((group) => selected.has(group));
  const names = new Set(groups.flatMap((group) => GROUPS[group].migrations));
  const migrations = ALL_MIGRATIONS.map((migration) => migration.name).filter((name) => names.has(name));
  return Object.freeze({
    groups: Object.freeze(groups),
    pulledIn: Object.freeze(pulledIn),
    migrations: Object.freeze(migrations),
  });
}

/** The group a released migration belongs to, or `undefined` for a name that is not one. */
export function migrationGroupOf(migrationName: string): MigrationGroup | undefined {
  return MIGRATION_GROUPS.find((group) => GROUPS[group].migrations.includes(migrationName));
}

/**
 * Parses the `--only` value of `payonce migrate`: group names separated by commas (spaces around them ignored),
 * e.g. `receipts,outbox,journal`.
 * @throws {InvalidOption} (`only`) for an empty list or an unknown group name.
 */
export function parseMigrationGroups(text: string): MigrationGroup[] {
  const names = text
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  selectMigrations(names as MigrationGroup[]);
  return names as MigrationGroup[];
}
