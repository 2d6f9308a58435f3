import { PayonceError } from '../core/errors.js';

/**
 * The optional peer dependency a store needs is not installed (payonce ships without database drivers: install
 * only the one you use). `packageName` is the npm package, `message` says which store needs it and the
 * `npm install` line, e.g. `SqliteStore needs the package "better-sqlite3": npm install better-sqlite3@12`.
 * Thrown by `SqliteStore.open`, `PostgresStore.connect`, `MysqlStore.connect` and `RedisStore.connect`. No HTTP
 * answer: it happens when the store is opened, before any request.
 */
export class DriverMissing extends PayonceError {
  readonly code = 'DRIVER_MISSING';
  /** The npm package that could not be loaded, e.g. `pg`. */
  readonly packageName: string;
  constructor(store: string, packageName: string, install: string, cause: unknown) {
    super(`${store} needs the package "${packageName}": npm install ${install}`, { cause });
    this.packageName = packageName;
  }
}

/** True when `error` is Node's "Cannot find package 'name'" for the bare specifier `name`. */
function isMissing(error: unknown, name: string): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ERR_MODULE_NOT_FOUND' && error instanceof Error && error.message.includes(`'${name}'`);
}

/**
 * Runs `load` (the store's dynamic `import()` of its driver) and turns a missing package into `DriverMissing`;
 * any other error (a broken install, a native build for another Node) is rethrown as is.
 */
export async function importDriver<T>(
  store: string,
  packageName: string,
  install: string,
  load: () => Promise<T>,
): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (isMissing(error, packageName)) throw new DriverMissing(store, packageName, install, error);
    throw error;
  }
}
