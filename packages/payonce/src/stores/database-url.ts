import { fileURLToPath } from 'node:url';
import { InvalidOption } from '../core/errors.js';
import type { SqlDialectName } from './sql/sql-dialect.js';

/**
 * A database URL (`--database-url`, `DATABASE_URL`, the service's `databaseUrl` option) that payonce cannot open:
 * empty, malformed, or of a scheme no SQL store speaks. An `InvalidOption` for `databaseUrl` (code
 * `INVALID_OPTION`); `reason` is the one-line explanation without the option prefix, with any password hidden.
 * The CLI prints `reason` and exits with status 2.
 */
export class InvalidDatabaseUrl extends InvalidOption {
  /** What is wrong and what is accepted instead; never contains the URL's password. */
  readonly reason: string;
  constructor(reason: string) {
    super('databaseUrl', reason);
    this.reason = reason;
  }
}

/** Where a database URL points: a SQLite file, or a PostgreSQL / MySQL connection URL. */
export type DatabaseTarget =
  | { readonly dialect: Extract<SqlDialectName, 'sqlite'>; readonly path: string }
  | { readonly dialect: Extract<SqlDialectName, 'postgres' | 'mysql'>; readonly url: string };

const ACCEPTED = 'a SQLite file path, sqlite:PATH, file:///PATH, postgres://…, postgresql://… or mysql://…';

function checkedUrl(raw: string): URL {
  try {
    return new URL(raw);
  } catch {
    throw new InvalidDatabaseUrl(`--database-url ${redact(raw)} is not a valid URL; expected ${ACCEPTED}`);
  }
}

function sqlitePath(path: string, raw: string): DatabaseTarget {
  if (path.length === 0) throw new InvalidDatabaseUrl(`--database-url ${raw} names no SQLite file`);
  return { dialect: 'sqlite', path };
}

/**
 * Parses `--database-url`: `postgres://` or `postgresql://` → PostgreSQL; `mysql://` (or `mariadb://`) → MySQL;
 * `file:///abs/path` → that SQLite file; `sqlite:path`, `sqlite://path` and `sqlite:///abs/path` → that SQLite
 * file; a string without a URL scheme → a SQLite file path.
 * @throws {InvalidDatabaseUrl} for an empty value, a malformed URL or any other scheme (e.g. `redis://`).
 */
export function parseDatabaseUrl(raw: string): DatabaseTarget {
  const value = raw.trim();
  if (value.length === 0) throw new InvalidDatabaseUrl(`--database-url is empty; expected ${ACCEPTED}`);
  const scheme = /^([a-z][a-z0-9+.-]+):/i.exec(value)?.[1]?.toLowerCase();
  if (scheme === undefined) return sqlitePath(value, value);
  switch (scheme) {
    case 'postgres':
    case 'postgresql':
      if (!value.slice(scheme.length).startsWith('://')) break;
      checkedUrl(value);
      return { dialect: 'postgres', url: value };
    case 'mysql':
    case 'mariadb': {
      if (!value.slice(scheme.length).startsWith('://')) break;
      checkedUrl(value);
      return { dialect: 'mysql', url: `mysql${value.slice(scheme.length)}` };
    }
    case 'sqlite': {
      const rest = value.slice('sqlite:'.length);
      return sqlitePath(rest.startsWith('//') ? rest.slice(2) : rest, value);
    }
    case 'file': {
      const url = checkedUrl(value);
      try {
        return sqlitePath(fileURLToPath(url), value);
      } catch (error) {
        if (error instanceof InvalidDatabaseUrl) throw error;
        throw new InvalidDatabaseUrl(`--database-url ${value} is not a local file URL; expected ${ACCEPTED}`);
      }
    }
  }
  throw new InvalidDatabaseUrl(
    `--database-url ${redact(value)}: unsupported scheme "${scheme}:"; expected ${ACCEPTED}`,
  );
}

/** The URL with its password replaced by `***`, for messages (also in a malformed `scheme://user:pass@…`). */
export function redact(raw: string): string {
  try {
    const url = new URL(raw);
    if (url.password === '') return raw;
    url.password = '***';
    return url.toString();
  } catch {
    return raw.replace(/(\/\/[^/:@]*:)[^@/]*@/, '$1***@');
  }
}

/** `sqlite /path/file.db` or `postgres postgres://user:***@host/db`, for messages. */
export function describeTarget(target: DatabaseTarget): string {
  return target.dialect === 'sqlite' ? `sqlite ${target.path}` : `${target.dialect} ${redact(target.url)}`;
}

/**
 * The environment variables a database URL is read from, in order: `PAYONCE_DATABASE_URL` (payonce's own, when
 * the application's `DATABASE_URL` points elsewhere), then `DATABASE_URL` (the common convention of hosting
 * platforms). Every `payonce` command that opens the database reads them the same way, after `--database-url`.
 */
export const DATABASE_URL_VARIABLES = ['PAYONCE_DATABASE_URL', 'DATABASE_URL'] as const;

/**
 * The first of `DATABASE_URL_VARIABLES` set to a non-blank value in `env`, or `undefined`. An empty variable
 * counts as unset. The value is returned as given (parse it with `parseDatabaseUrl`).
 * @example databaseUrlFromEnv({ DATABASE_URL: 'postgres://db/shop' }) // 'postgres://db/shop'
 */
export function databaseUrlFromEnv(env: Readonly<Record<string, string | undefined>>): string | undefined {
  for (const name of DATABASE_URL_VARIABLES) {
    const value = env[name];
    if (value !== undefined && value.trim() !== '') return value;
  }
  return undefined;
}
