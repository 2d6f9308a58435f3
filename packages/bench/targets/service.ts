/**
 * The reference service's pair targets, run pair by pair by the bench harness
 * (lib/side-protocol.ts): the webhook intake end to end against a hand-written fastify + pg route that sends
 * the same statements, at 1, 8, 64 and 256 concurrent deliveries. The service's Stripe webhooks are one-commit under
 * the intake's group commit (docs/design.md §11 "Group commit"); the route commits every delivery's four
 * transactions on its own. Profiles, the group commit's measurements and the mixed checkout+webhook load:
 * notes/service.md, notes/path.md, service/mixed-load.ts.
 */
import type { PairTarget } from '../lib/side-protocol.js';

const INTAKE_SIDE = 'service/intake-side.ts';

/**
 * Goal of each concurrency: ≥ 0.8× where a delivery rarely waits for another (1 and 8 connections: group commit
 * has little to share), ≥ 3× at 64 (issue #40), reported only at 256.
 */
const GOALS: ReadonlyArray<{ readonly connections: number; readonly min: number | null }> = [
  { connections: 1, min: 0.8 },
  { connections: 8, min: 0.8 },
  { connections: 64, min: 3 },
  { connections: 256, min: null },
];

function intakeTarget(connections: number, min: number | null): PairTarget {
  return {
    // The 8-connection row keeps the id of the earlier runs' single row.
    id: connections === 8 ? 'service-webhook-intake' : `service-webhook-intake-c${connections}`,
    group: 'Reference service',
    title:
      'PostgreSQL webhook intake end to end (signed Stripe payment_intent.succeeded → verification → receipt → ' +
      'applyProviderEvent → journal), reference service ÷ hand-written fastify + pg route of the same statements, ' +
      `${connections} connection${connections === 1 ? '' : 's'}`,
    a: {
      id: `postgres/service-intake@c${connections}`,
      label: 'payonce serve (createService) webhook intake, group commit',
      backend: 'postgres',
      script: INTAKE_SIDE,
      args: ['service', '--connections', String(connections)],
    },
    b: {
      id: `postgres/bare-intake@c${connections}`,
      label: 'hand-written fastify + pg route, same 16 statements, a transaction per step',
      backend: 'postgres',
      script: INTAKE_SIDE,
      args: ['bare', '--connections', String(connections)],
    },
    min,
  };
}

/**
 * The same delivery through an application's own stack (issue #40 item 4): fastify, Drizzle on node-postgres and
 * payonce's intake with a Stripe endpoint on the Drizzle transaction (service/drizzle-intake.ts), ÷ the hand-written
 * route, at 64 connections. Reported: no group commit applies (an application's transaction is never shared).
 */
const drizzleTarget: PairTarget = {
  id: 'service-webhook-intake-drizzle-c64',
  group: 'Reference service',
  title:
    'PostgreSQL webhook intake end to end through an application on Drizzle (node-postgres): payonce intake + ' +
    'applyProviderEvent in the Drizzle transaction ÷ hand-written fastify + pg route, 64 connections',
  a: {
    id: 'postgres/drizzle-intake@c64',
    label: 'fastify + Drizzle app, payonce intake on drizzleTransactions, applyProviderEvent(receiptHeld)',
    backend: 'postgres',
    script: INTAKE_SIDE,
    args: ['drizzle', '--connections', '64'],
  },
  b: {
    id: 'postgres/bare-intake@c64',
    label: 'hand-written fastify + pg route, same 16 statements, a transaction per step',
    backend: 'postgres',
    script: INTAKE_SIDE,
    args: ['bare', '--connections', '64'],
  },
  min: null,
};

export const targets: readonly PairTarget[] = Object.freeze([
  ...GOALS.map(({ connections, min }) => intakeTarget(connections, min)),
  drizzleTarget,
]);
