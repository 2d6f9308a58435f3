import type { StackAdapterDefinition } from '../stack-adapter.js';
import { betterSqlite3Stack } from './better-sqlite3.js';
import { drizzleBetterSqlite3Stack } from './drizzle-better-sqlite3.js';
import { drizzleMysql2Stack } from './drizzle-mysql2.js';
import { drizzleNodePostgresStack } from './drizzle-node-postgres.js';
import { drizzlePostgresJsStack } from './drizzle-postgres-js.js';
import { knexStack } from './knex.js';
import { kyselyStack } from './kysely.js';
import { mysql2Stack } from './mysql2.js';
import { pgStack } from './pg.js';
import { postgresJsStack } from './postgres-js.js';
import { prismaStack } from './prisma.js';
import { typeormStack } from './typeorm.js';

/**
 * Every adapter of the conformance suite, by name. One file per adapter in this folder, named as its key here (the
 * kill -9 child loads only `<name>.ts`); the suite runs each on every database of its `databases`.
 */
export const STACK_ADAPTERS: Readonly<Record<string, StackAdapterDefinition>> = {
  pg: pgStack,
  'drizzle-node-postgres': drizzleNodePostgresStack,
  'postgres-js': postgresJsStack,
  mysql2: mysql2Stack,
  'better-sqlite3': betterSqlite3Stack,
  prisma: prismaStack,
  kysely: kyselyStack,
  knex: knexStack,
  typeorm: typeormStack,
  'drizzle-postgres-js': drizzlePostgresJsStack,
  'drizzle-mysql2': drizzleMysql2Stack,
  'drizzle-better-sqlite3': drizzleBetterSqlite3Stack,
};
