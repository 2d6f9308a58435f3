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
 * Errors after which a connection's prepared statement of a text is not used again (the text then runs unnamed on
 * that connection): 0A000 "cached plan must not change result type" (a table of the statement changed since it was
 * prepared: PostgreSQL refuses the statement on every later run), 26000 "prepared statement does not exist" (`pg`
 * closed it after a parameter it could not send, yet still thinks it parsed), 42804 and 42883 (a column's type
 * changed under the statement's fixed parameter types), and any error with no SQLSTATE (raised by the client before
 * the statement reached the server).
 */
const STALE_STATEMENT = new Set(['0A000', '26000', '42804', '42883']);

function leavesStatementStale(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code !== 'string' || STALE_STATEMENT.has(code);
}

/**
 * Makes `client` (one connection of a `pg` pool) send every statement that has parameters as a named prepared
 * statement: `pg` parses it once on that connection and afterwards sends only its parameters (Bind/Execute), and
 * PostgreSQL plans it from the cached statement (a generic plan after five runs when it costs no more), which
 * skips most of the parsing and planning that is a third of PostgreSQL's CPU on the webhook path
 * (packages/bench/notes/path.md §9). `names` maps each text to its name for the whole pool, so every connection
 * uses one name per text; statements without parameters (`begin`, `commit`, `savepoint`) are left as they are. A
 * statement whose prepared form fails in a way that would repeat on every run (see {@link STALE_STATEMENT}) fails
 * that once, and its text runs unnamed on this connection from then on.
 * Source: PostgreSQL's extended query protocol (docs, "Message Flow": Parse, Bind, Execute) and `pg`'s `name`
 * query option.
 */
export function prepareStatementsOn(client: PreparingClient, names: Map<string, string>): void {
  const query = client.query.bind(client);
  /** Texts whose prepared statement went stale on this connection. */
  const unnamed = new Set<string>();
  client.query = (config: unknown, values?: unknown, callback?: unknown): unknown => {
    if (typeof config !== 'string' || !Array.isArray(values) || values.length === 0 || unnamed.has(config)) {
      return query(config, values, callback);
    }
    let name = names.get(config);
    if (name === undefined && names.size < MAX_PREPARED_TEXTS) {
      name = `payonce_s${names.size}`;
      names.set(config, name);
    }
    if (name === undefined) return query(config, values, callback);
    const named = { name, text: config, values };
    const stale = (error: unknown) => {
      if (leavesStatementStale(error)) unnamed.add(config);
    };
    if (typeof callback === 'function') {
      return query(named, (error: unknown, result: unknown) => {
        if (error) stale(error);
        (callback as (error: unknown, result: unknown) => void)(error, result);
      });
    }
    return (query(named) as Promise<unknown>).catch((error: unknown) => {
      stale(error);
      throw error;
    });
  };
}
