import { type Kysely, sql } from 'kysely';

/**
 * `db` as Kysely's `Migrator` sees it, with table introspection limited to `schema`. The migrator looks for its
 * bookkeeping tables with `db.introspection.getTables()`, which on PostgreSQL lists the tables of every schema of
 * the database and calls `has_schema_privilege` on each schema's name: a schema another client drops during that
 * scan fails the whole migration with `3F000` naming the other schema, although nothing is wrong with ours (reproduced
 * by test/stores/sql/migrate-schema-churn.test.ts). Here `getTables` reads `information_schema.tables` of `schema`
 * only (names; no columns, which the migrator does not use); everything else is `db`'s own. The introspector is
 * written for Kysely 0.28 and 0.29 alike (0.29 dropped `getMetadata` and added `isForeign` to a table's metadata), so
 * it is not typed as either version's `DatabaseIntrospector`.
 */
export function withSchemaScopedIntrospection(db: Kysely<unknown>, schema: string): Kysely<unknown> {
  const getTables = async () => {
    const { rows } = await sql<{ name: string; type: string }>`select table_name as name, table_type as type
      from information_schema.tables where table_schema = ${schema}`.execute(db);
    return rows.map((row) => ({ name: row.name, schema, isView: row.type === 'VIEW', isForeign: false, columns: [] }));
  };
  const introspection = {
    getSchemas: () => db.introspection.getSchemas(),
    getTables,
    getMetadata: async () => ({ tables: await getTables() }),
  };
  return new Proxy(db, {
    get(target, property) {
      if (property === 'introspection') return introspection;
      // Kysely keeps its state in private fields, so its methods must run on the instance itself, not the proxy.
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
