import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely';

/** The migration ledger as Kysely's `Migrator` reads it during one `migrate` run, and what it really held. */
export interface LedgerView {
  /** Put on the `db` handed to the `Migrator`. */
  readonly plugin: KyselyPlugin;
  /** Every migration name the ledger held when the migrator read it (under its lock), in the order read. */
  executedBefore(): readonly string[];
}

function readsTable(node: RootOperationNode, table: string): boolean {
  if (node.kind !== 'SelectQueryNode') return false;
  return (node.from?.froms ?? []).some(
    (from) =>
      from.kind === 'TableNode' &&
      (from as { table?: { identifier?: { name?: string } } }).table?.identifier?.name === table,
  );
}

/**
 * A view of the ledger table `table` without the rows of the migrations in `hidden`. Kysely's `Migrator` refuses a
 * ledger row whose migration its provider does not list ("previously executed migration … is missing"), so a run
 * limited to some groups lists those groups' migrations only and hides the other groups' rows (a row of a
 * migration this version does not know, from a newer payonce, stays visible and is refused as before).
 * The ledger is read under the migrator's own lock, so a concurrent run of other groups cannot slip in between.
 * Rows are only hidden from the read, never changed: a later run of every group sees them all.
 */
export function ledgerView(table: string, hidden: ReadonlySet<string>): LedgerView {
  const reads = new WeakSet<object>();
  let executed: readonly string[] = [];
  const plugin: KyselyPlugin = {
    transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
      if (readsTable(args.node, table)) reads.add(args.queryId);
      return args.node;
    },
    async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
      if (!reads.has(args.queryId)) return args.result;
      const { rows } = args.result;
      executed = Object.freeze(rows.map((row) => String(row.name)));
      return { ...args.result, rows: rows.filter((row) => !hidden.has(String(row.name))) };
    },
  };
  return { plugin, executedBefore: () => executed };
}
