import {
  IdentifierNode,
  type KyselyPlugin,
  OperationNodeTransformer,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  type TableNode,
  type UnknownRow,
} from 'kysely';
import { InvalidOption } from '../../core/errors.js';

/** What every payonce table, index, constraint, trigger, function and ledger table starts with by default. */
export const DEFAULT_TABLE_PREFIX = 'payonce_';

/**
 * The longest table prefix, in characters: the longest name payonce derives (`…payment_events_parked_reference_idx`,
 * 35 characters after the prefix) then stays within PostgreSQL's 63-character identifier limit (MySQL: 64).
 */
export const MAX_TABLE_PREFIX_LENGTH = 24;

/**
 * A prefix payonce accepts: a lower-case letter or `_`, then lower-case letters, digits or `_`. Lower case only:
 * payonce's DDL names its objects unquoted, which PostgreSQL folds to lower case, and MySQL on Windows and macOS
 * stores table names in lower case (`lower_case_table_names`).
 */
const TABLE_PREFIX = new RegExp(`^[a-z_][a-z0-9_]{0,${MAX_TABLE_PREFIX_LENGTH - 1}}$`);

/** `payonce_` at the start of a name in SQL text: not inside a longer identifier, followed by the rest of a name. */
const PAYONCE_NAME = /(?<![A-Za-z0-9_$])payonce_(?=[A-Za-z0-9_])/g;

/**
 * Checks a `tablePrefix` option: `undefined`/`null` → `payonce_` (the names payonce always used).
 * @throws {InvalidOption} (`tablePrefix`) for a value that is not 1–24 lower-case letters, digits or `_` starting
 *   with a letter or `_`.
 */
export function checkTablePrefix(tablePrefix: unknown): string {
  if (tablePrefix === undefined || tablePrefix === null) return DEFAULT_TABLE_PREFIX;
  if (typeof tablePrefix !== 'string' || !TABLE_PREFIX.test(tablePrefix)) {
    throw new InvalidOption(
      'tablePrefix',
      `must be 1-${MAX_TABLE_PREFIX_LENGTH} lower-case letters, digits or _, starting with a letter or _ (e.g. billing_)`,
    );
  }
  return tablePrefix;
}

/** `name` with its leading `payonce_` replaced by `tablePrefix` (`payonce_receipts` → `billing_receipts`); other names as they are. */
export function prefixedName(tablePrefix: string, name: string): string {
  if (tablePrefix === DEFAULT_TABLE_PREFIX || !name.startsWith(DEFAULT_TABLE_PREFIX)) return name;
  return tablePrefix + name.slice(DEFAULT_TABLE_PREFIX.length);
}

/**
 * SQL text (a migration's DDL, a fixed statement) with every name starting with `payonce_` renamed to start with
 * `tablePrefix`: tables, indexes, constraints, triggers, the finish function and its notification channel, the
 * migration ledger, and the table names MySQL's migration `0005` looks up in `information_schema`. payonce's SQL
 * names nothing else `payonce_…`, so two prefixes never share an object (SQLite index names are database-wide,
 * PostgreSQL's schema-wide).
 */
export function prefixedStatement(tablePrefix: string, statement: string): string {
  if (tablePrefix === DEFAULT_TABLE_PREFIX) return statement;
  return statement.replace(PAYONCE_NAME, tablePrefix);
}

/** Renames each `payonce_…` table a query names, wherever it appears (FROM, JOIN, INSERT INTO, `table.column`). */
class TablePrefixTransformer extends OperationNodeTransformer {
  readonly #prefix: string;

  constructor(prefix: string) {
    super();
    this.#prefix = prefix;
  }

  protected override transformTable(node: TableNode): TableNode {
    const transformed = super.transformTable(node);
    const name = transformed.table.identifier.name;
    const renamed = prefixedName(this.#prefix, name);
    if (renamed === name) return transformed;
    return Object.freeze({
      ...transformed,
      table: Object.freeze({ ...transformed.table, identifier: IdentifierNode.create(renamed) }),
    });
  }
}

/** The plugin of each prefix, made once (a Kysely view per instance holds one; see `onSchema`). */
const plugins = new Map<string, KyselyPlugin>();

/**
 * A Kysely plugin that renames every `payonce_…` table of a query-builder statement to start with `tablePrefix`
 * (`selectFrom('payonce_receipts')` runs on `billing_receipts`); names of other tables pass unchanged. Raw SQL text
 * is not touched: payonce's raw statements go through `prefixedStatement`. One instance per prefix, reused.
 */
export function tablePrefixPlugin(tablePrefix: string): KyselyPlugin {
  let plugin = plugins.get(tablePrefix);
  if (plugin === undefined) {
    const transformer = new TablePrefixTransformer(tablePrefix);
    plugin = Object.freeze({
      transformQuery: (args: PluginTransformQueryArgs): RootOperationNode =>
        transformer.transformNode(args.node, args.queryId),
      transformResult: async (args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> => args.result,
    });
    plugins.set(tablePrefix, plugin);
  }
  return plugin;
}
