/**
 * The "your stack" rows (issue #41): for every stack of `stack/sides/index.ts`, the target `stack-<name>-vs-own` =
 * one delivery's one-commit path (claim, one business INSERT, one outbox row, completion, commit) in a transaction
 * that stack opened, through its `payonce/tx/<stack>` adapter (side A) ÷ the same work in payonce's own Kysely
 * transaction, `guard.runInNewTransaction` (side B). PostgreSQL, 16 concurrent callers with unique keys, a pool of
 * 10 connections carrying the transactions on both sides (`stack/stack-side.ts`). Adding a stack adds its row:
 * one file in `stack/sides/` and one line in its index.
 */
import type { PairTarget, SideSpec } from '../lib/side-protocol.js';
import { quickRun } from '../lib/side-protocol.js';
import { STACK_SIDES } from '../stack/sides/index.js';
import { ownSide } from '../stack/sides/own.js';
import type { StackSide } from '../stack/stack-side.js';

/** Concurrent callers of both sides: more than the pool's 10 connections, so both sides queue for one alike. */
export const STACK_CONCURRENCY = 16;

/**
 * Warm-up of both sides, in seconds: 3 s rather than 1 s, so that a stack's longer path (an ORM's query builder, the
 * joined Kysely view) is optimised by V8 before the timed part, as payonce's own path is (notes/batched.md: a side's
 * rate still climbs in its first 2.5–3 s).
 */
const STACK_WARMUP_SECONDS = 3;

/** The goal of every row: the adapter costs at most a tenth of the rate of payonce's own transaction. */
export const STACK_GOAL = 0.9;

const GROUP = 'Your stack (one commit)';

function stackSideSpec(name: string, side: StackSide): SideSpec {
  const warmup = quickRun() ? [] : ['--warmup-seconds', String(STACK_WARMUP_SECONDS)];
  return {
    id: `postgres/stack-${name}@unique-c${STACK_CONCURRENCY}`,
    label: `${side.label} on PostgreSQL: claim, business INSERT, outbox row, completion, 1 commit; unique keys, ${STACK_CONCURRENCY} concurrent`,
    backend: side.backend,
    script: 'lib/subject-side.ts',
    args: [
      '--subject',
      `postgres/stack-${name}`,
      '--workload',
      'unique',
      '--concurrency',
      String(STACK_CONCURRENCY),
      ...warmup,
    ],
  };
}

/**
 * One target per registered stack, in the registry's order.
 * @throws {Error} a name that is not kebab-case, or `own` (the name of side B).
 */
export function stackTargets(sides: Readonly<Record<string, StackSide>>): PairTarget[] {
  return Object.entries(sides).map(([name, side]) => {
    if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(name) || name === 'own') {
      throw new Error(`stack side name ${JSON.stringify(name)}: kebab-case, and not "own"`);
    }
    return {
      id: `stack-${name}-vs-own`,
      group: GROUP,
      title: `${side.label} ÷ payonce's own Kysely transaction (runInNewTransaction), one-commit delivery with a business INSERT and an outbox row, PostgreSQL, ${STACK_CONCURRENCY} concurrent`,
      a: stackSideSpec(name, side),
      b: stackSideSpec('own', ownSide),
      min: STACK_GOAL,
    };
  });
}

export const targets: readonly PairTarget[] = stackTargets(STACK_SIDES);
