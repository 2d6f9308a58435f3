/**
 * Most distinct statement texts one pool prepares (`PostgresConnectOptions.preparedStatements`); a text past them
 * runs unnamed, as without the option: the server's memory per connection stays bounded whatever SQL an application
 * sends through the store's Kysely instance.
 */
export const MAX_PREPARED_TEXTS = 500;

/** The part of a `pg` client whose statements are named: its `query`. */
export interface PreparingClient {
  query: (...args: unknown[]) => unknown;
}

/**
 * Makes `client` (one connection of a `pg` pool) send every statement that has parameters as a named prepared
 * statement: `pg` parses it once on that connection and afterwards sends only its parameters (Bind/Execute), and
 * PostgreSQL plans it from the cached statement (a generic plan after five runs when it costs no more), which
 * skips most of the parsing and planning that is a third of PostgreSQL's CPU on the webhook path
 * (packages/bench/notes/path.md §9). `names` maps each text to its name for the whole pool, so every connection
 * uses one name per text; statements without parameters (`begin`, `commit`, `savepoint`) are left as they are.
 * Source: PostgreSQL's extended query protocol (docs, "Message Flow": Parse, Bind, Execute) and `pg`'s `name`
 * query option.
 */
export function prepareStatementsOn(client: PreparingClient, names: Map<string, string>): void {
  const query = client.query.bind(client);
  client.query = (config: unknown, values?: unknown, callback?: unknown): unknown => {
    if (typeof config === 'string' && Array.isArray(values) && values.length > 0) {
      let name = names.get(config);
      if (name === undefined && names.size < MAX_PREPARED_TEXTS) {
        name = `payonce_s${names.size}`;
        names.set(config, name);
      }
      if (name !== undefined) return query({ name, text: config, values }, callback);
    }
    return query(config, values, callback);
  };
}
