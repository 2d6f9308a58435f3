import type { StackAdapterDefinition } from '../stack-adapter.js';
import { betterSqlite3Stack } from './better-sqlite3.js';
import { drizzleNodePostgresStack } from './drizzle-node-postgres.js';
import { mysql2Stack } from './mysql2.js';
import { knexStack } from './knex.js';
import { kyselyStack } from './kysely.js';
import { pgStack } from './pg.js';
import { postgresJsStack } from './postgres-js.js';
import { prismaStack } from './prisma.js';

/**
 * Every adapter of the conformance suite, by name (the kill -9 child opens one by name). One file per adapter in
 * this folder; the suite runs each on every database of its `databases`.
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
};
