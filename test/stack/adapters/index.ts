import type { StackAdapterDefinition } from '../stack-adapter.js';
import { drizzleNodePostgresStack } from './drizzle-node-postgres.js';
import { pgStack } from './pg.js';
import { prismaStack } from './prisma.js';

/**
 * Every adapter of the conformance suite, by name (the kill -9 child opens one by name). One file per adapter in
 * this folder; the suite runs each on every database of its `databases`.
 */
export const STACK_ADAPTERS: Readonly<Record<string, StackAdapterDefinition>> = {
  pg: pgStack,
  'drizzle-node-postgres': drizzleNodePostgresStack,
  prisma: prismaStack,
};
