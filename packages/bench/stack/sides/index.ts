import type { StackSide } from '../stack-side.js';
import { drizzleSide } from './drizzle.js';
import { drizzlePostgresJsSide } from './drizzle-postgres-js.js';
import { knexSide } from './knex.js';
import { kyselySide } from './kysely.js';
import { pgSide } from './pg.js';
import { postgresJsSide } from './postgres-js.js';
import { prismaSide } from './prisma.js';
import { typeormSide } from './typeorm.js';

/**
 * The stacks whose own transaction the bench runs the one-commit path in, by name: each becomes the target
 * `stack-<name>-vs-own` (`targets/stack.ts`), side A = that stack, side B = payonce's own transaction
 * (`own.ts`). To add an adapter of `payonce/tx/<stack>`: one file in this folder exporting a `StackSide` (copy
 * `pg.ts`: open the stack's transaction, `runIn<Stack>Transaction(work.guard, tx, work.key(id), handler,
 * work.options(id))`, the business INSERT through the stack's own API, then `work.finish(payonceTx, id)`), and one
 * line here. Names are kebab-case; `own` is taken.
 */
export const STACK_SIDES: Readonly<Record<string, StackSide>> = {
  pg: pgSide,
  drizzle: drizzleSide,
  'postgres-js': postgresJsSide,
  kysely: kyselySide,
  knex: knexSide,
  typeorm: typeormSide,
  prisma: prismaSide,
  'drizzle-postgres-js': drizzlePostgresJsSide,
};
