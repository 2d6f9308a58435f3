import { type Compilable, CompiledQuery, type Kysely, type QueryResult } from 'kysely';
import type { ReceiptsDatabase } from './receipts-table.js';
import type { SqlDialect } from './sql-dialect.js';
import { executeCompiled } from './transaction-connection.js';

/**
 * One fixed statement: built with Kysely's query builder from named parameter slots, compiled ONCE per store and
 * then executed as `CompiledQuery.raw(sql, parameters)` with fresh values. Building and compiling a Kysely query on
 * every call was most of payonce's own CPU per delivery on SQLite (packages/bench/notes/profiles.md) and in the reference
 * service's webhook intake (packages/bench/notes/service.md); the SQL text sent is byte for byte what the builder produces.
 * `DB` is the Kysely database type the statement is built on (the receipts tables unless said otherwise).
 */
export interface StatementDefinition<N extends string, R, DB = ReceiptsDatabase> {
  readonly names: readonly N[];
  readonly build: (db: Kysely<DB>, slots: Readonly<Record<N, never>>, dialect: SqlDialect) => Compilable<R>;
}

/**
 * Declares a fixed statement of the receipts tables whose parameters named `names` are filled in on every run.
 * `build` receives stand-ins for them (typed `never` so they fit any column) and the store's dialect; every other
 * value it uses is bound as a constant. For other tables see {@link statementsOn}.
 */
export function defineStatement<const N extends string, R>(
  names: readonly N[],
  build: (db: Kysely<ReceiptsDatabase>, slots: Readonly<Record<N, never>>, dialect: SqlDialect) => Compilable<R>,
): StatementDefinition<N, R> {
  return Object.freeze({ names: Object.freeze([...names]), build });
}

/**
 * `defineStatement` for the tables of `DB` (payments, outbox, delivery journal): `statementsOn<PaymentsDatabase>()`
 * returns a `define(names, build)` whose `build` gets a `Kysely<DB>`. Its statements run on a store's own cache
 * like the receipts' (`SqlStore.statements`).
 */
export function statementsOn<DB>() {
  return function define<const N extends string, R>(
    names: readonly N[],
    build: (db: Kysely<DB>, slots: Readonly<Record<N, never>>, dialect: SqlDialect) => Compilable<R>,
  ): StatementDefinition<N, R, DB> {
    return Object.freeze({ names: Object.freeze([...names]), build });
  };
}

/** A parameter of a compiled template: a slot filled in per run, or a constant of the statement. */
type Parameter<N extends string> = { readonly slot: N } | { readonly constant: unknown };

/** A definition compiled on one Kysely instance: its SQL text and where each slot goes in its parameters. */
export class StatementTemplate<N extends string, R> {
  private constructor(
    readonly sql: string,
    private readonly parameters: readonly Parameter<N>[],
  ) {}

  /**
   * Compiles `definition` on `db`. Each slot is a unique sentinel string while compiling, so its position(s)
   * in the compiled parameters are found by identity, whatever order the dialect's compiler emits them in.
   * @throws {Error} if a slot does not appear among the compiled parameters (a plugin rewrote it).
   */
  static compile<N extends string, R, DB>(
    db: Kysely<DB>,
    dialect: SqlDialect,
    definition: StatementDefinition<N, R, DB>,
  ): StatementTemplate<N, R> {
    const sentinels = new Map<unknown, N>();
    const slots = {} as Record<N, never>;
    for (const name of definition.names) {
      const sentinel = `\u0000payonce-slot:${name}\u0000`;
      sentinels.set(sentinel, name);
      slots[name] = sentinel as never;
    }
    const compiled = definition.build(db, Object.freeze(slots), dialect).compile();
    const seen = new Set<N>();
    const parameters = compiled.parameters.map((value): Parameter<N> => {
      const slot = sentinels.get(value);
      if (slot === undefined) return { constant: value };
      seen.add(slot);
      return { slot };
    });
    const missing = definition.names.filter((name) => !seen.has(name));
    if (missing.length > 0) {
      throw new Error(`payonce statement lost parameter(s) ${missing.join(', ')} when compiled: ${compiled.sql}`);
    }
    return new StatementTemplate(compiled.sql, parameters);
  }

  /** The parameters of one execution: `values` in the slots, the constants in between, in compiled order. */
  parametersOf(values: Readonly<Record<N, unknown>>): unknown[] {
    const parameters = new Array<unknown>(this.parameters.length);
    for (let i = 0; i < parameters.length; i++) {
      const parameter = this.parameters[i]!;
      parameters[i] = 'slot' in parameter ? values[parameter.slot] : parameter.constant;
    }
    return parameters;
  }

  /** The query to execute with `values` in the slots. */
  bind(values: Readonly<Record<N, unknown>>): CompiledQuery<R> {
    return CompiledQuery.raw(this.sql, this.parametersOf(values)) as CompiledQuery<R>;
  }
}

/**
 * The compiled templates of one store, compiled lazily on the store's own Kysely instance (so its dialect and
 * query plugins shape the SQL once) and shared by the store, every transaction view of it, and the payments,
 * outbox and journal statements run on that store. Whatever tables a definition is built on, it is compiled on
 * this one instance: a transaction of it compiles exactly the same SQL.
 */
export class StatementCache {
  private readonly templates = new Map<object, StatementTemplate<string, unknown>>();

  /** `db`: the store's Kysely instance (typed with the receipts tables; any tables of its database compile on it). */
  constructor(
    private readonly db: Kysely<ReceiptsDatabase>,
    readonly dialect: SqlDialect,
  ) {}

  template<N extends string, R, DB>(definition: StatementDefinition<N, R, DB>): StatementTemplate<N, R> {
    let template = this.templates.get(definition);
    if (template === undefined) {
      template = StatementTemplate.compile(this.db as unknown as Kysely<DB>, this.dialect, definition);
      this.templates.set(definition, template as StatementTemplate<string, unknown>);
    }
    return template as unknown as StatementTemplate<N, R>;
  }
}

/**
 * Executes `definition` with `values` on `db` (a pool or a transaction of the cache's store); in a transaction
 * without plugins straight on its connection (`executeCompiled`), else through Kysely's executor.
 */
export function executeStatement<N extends string, R, DB>(
  db: Kysely<DB>,
  cache: StatementCache,
  definition: StatementDefinition<N, R, DB>,
  values: Readonly<Record<N, unknown>>,
): Promise<QueryResult<R>> {
  return executeCompiled(db, cache.template(definition).bind(values));
}
