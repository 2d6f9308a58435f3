import { createRequire } from 'node:module';
import { PayonceError } from './errors.js';

/**
 * What `npm install` is told for each optional peer dependency: the major the tests run on, which its peer range (in the `payonce` and
 * `@payonce/cli` manifests, or the dependency range of `@payonce/service`) accepts. A package not listed is suggested by its bare name.
 */
const INSTALL: Readonly<Record<string, string>> = {
  'better-sqlite3': 'better-sqlite3@12',
  pg: 'pg@8',
  'drizzle-orm': 'drizzle-orm@0',
  postgres: 'postgres@3',
  kysely: 'kysely@0.28',
  knex: 'knex@3',
  typeorm: 'typeorm@1',
  mysql2: 'mysql2@3',
  ioredis: 'ioredis@6',
  express: 'express@5',
  fastify: 'fastify@5',
  hono: 'hono@4',
  '@hono/node-server': '@hono/node-server@2',
  '@nats-io/jetstream': '@nats-io/jetstream@3',
  '@nats-io/transport-node': '@nats-io/transport-node@3',
  amqplib: 'amqplib@2',
  pino: 'pino@10',
  'prom-client': 'prom-client@15',
  '@opentelemetry/api': '@opentelemetry/api@1',
  '@nestjs/common': '@nestjs/common@12',
  '@nestjs/core': '@nestjs/core@12',
  rxjs: 'rxjs@7',
  '@fastify/cookie': '@fastify/cookie@11',
  '@fastify/static': '@fastify/static@10',
  '@fastify/swagger': '@fastify/swagger@9',
  '@payonce/cli': '@payonce/cli@0.1.0',
  '@payonce/sandbox': '@payonce/sandbox@0.1.0',
  '@payonce/service': '@payonce/service@0.1.0',
  '@payonce/storm': '@payonce/storm@0.1.0',
  tsx: 'tsx@4',
};

/** The `npm install` argument suggested for `packageName`, e.g. `pg@8`. */
export function installArgumentOf(packageName: string): string {
  return INSTALL[packageName] ?? packageName;
}

/**
 * An optional peer dependency that an entry point, a store or a command needs is not installed (e.g.
 * `payonce/observe` needs `pino`, `PostgresStore.connect` needs `pg`). The message names what needs it, the package
 * and the `npm install` line: `PostgresStore needs the package "pg": npm install pg@8`. The loader's error is the
 * `cause`. Code `MISSING_PEER_DEPENDENCY`; no HTTP answer (it happens at start-up, before any request).
 * @see docs/errors.md `MISSING_PEER_DEPENDENCY`.
 */
export class MissingPeer extends PayonceError<'MISSING_PEER_DEPENDENCY'> {
  readonly code = 'MISSING_PEER_DEPENDENCY';
  /** The package that could not be loaded, e.g. `pino`. */
  readonly packageName: string;
  constructor(packageName: string, neededFor: string, options?: ErrorOptions) {
    super(`${neededFor} needs the package "${packageName}": npm install ${installArgumentOf(packageName)}`, options);
    this.packageName = packageName;
  }
}

/** A bare npm package name, scoped or not (no path, no subpath). */
const PACKAGE_NAME = /^(?:@[a-z0-9][\w.~-]*\/)?[a-z0-9~][\w.~-]*$/i;

/**
 * The package Node could not find, when `error` is a "not found" of a bare specifier: ESM's `ERR_MODULE_NOT_FOUND`
 * ("Cannot find package 'p' imported from …", also as a path ending in `node_modules/p`) or CommonJS's
 * `MODULE_NOT_FOUND` ("Cannot find module 'p/sub'"). A missing relative file gives `undefined`.
 */
function missingPackageOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (!(error instanceof Error) || (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND')) return undefined;
  const named = /Cannot find (?:package|module) '([^']+)'/.exec(error.message)?.[1];
  if (named === undefined) return undefined;
  const inNodeModules = /(?:^|[\\/])node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)$/.exec(named)?.[1];
  const specifier = inNodeModules?.replace('\\', '/') ?? named;
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
  return name !== undefined && PACKAGE_NAME.test(name) ? name : undefined;
}

/**
 * Loads the optional peer dependency `packageName` (by default `import(packageName)`; pass `load` to import a
 * literal specifier or a subpath, e.g. `() => import('pg')`). When `packageName` itself is not installed this throws
 * {@link MissingPeer}; any other error while loading (a broken install, an error thrown by the module, another
 * missing package) is rethrown as is.
 * @param neededFor what needs it, for the message (e.g. `PostgresStore`, `payonce/relay`).
 * @throws {MissingPeer} `packageName` is not installed.
 */
export async function importPeer<T>(
  packageName: string,
  neededFor: string,
  load: () => Promise<T> = () => import(packageName) as Promise<T>,
): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (missingPackageOf(error) === packageName) throw new MissingPeer(packageName, neededFor, { cause: error });
    throw error;
  }
}

/**
 * Runs `load` (a dynamic `import()` of a module with optional dependencies of its own, e.g. a command's
 * implementation) and turns a "not found" of any package into {@link MissingPeer} naming that package; any other
 * error is rethrown as is.
 * @param neededFor what needs it, for the message (e.g. `payonce serve`).
 * @throws {MissingPeer} a package `load` imports is not installed.
 */
export async function importWithPeers<T>(neededFor: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const missing = missingPackageOf(error);
    if (missing !== undefined) throw new MissingPeer(missing, neededFor, { cause: error });
    throw error;
  }
}

const require = createRequire(import.meta.url);

/**
 * The synchronous {@link importPeer}, for CommonJS peers (pino, prom-client) that a synchronous API or an entry
 * point's top level needs: `require(packageName)` resolved from the payonce package.
 * @param neededFor what needs it, for the message (e.g. `payonce/observe`).
 * @throws {MissingPeer} `packageName` is not installed.
 */
export function requirePeer<T>(packageName: string, neededFor: string): T {
  try {
    return require(packageName) as T;
  } catch (error) {
    if (missingPackageOf(error) === packageName) throw new MissingPeer(packageName, neededFor, { cause: error });
    throw error;
  }
}
