import type { StackAdapterDefinition } from '../stack-adapter.js';
import { drizzleBetterSqlite3Stack } from './drizzle-better-sqlite3.js';
import { drizzleMysql2Stack } from './drizzle-mysql2.js';
import { drizzleNodePostgresStack } from './drizzle-node-postgres.js';
import { drizzlePostgresJsStack } from './drizzle-postgres-js.js';
import { pgStack } from './pg.js';
import { typeormStack } from './typeorm.js';

/**
 * Every adapter of the conformance suite, by name (the kill -9 child opens one by name). One file per adapter in
 * this folder; the suite runs each on every database of its `databases`.
 */
export const STACK_ADAPTERS: Readonly<Record<string, StackAdapterDefinition>> = {
  pg: pgStack,
  'drizzle-node-postgres': drizzleNodePostgresStack,
  typeorm: typeormStack,
  'drizzle-postgres-js': drizzlePostgresJsStack,
  'drizzle-mysql2': drizzleMysql2Stack,
  'drizzle-better-sqlite3': drizzleBetterSqlite3Stack,
};
