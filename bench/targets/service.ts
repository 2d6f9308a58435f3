/**
 * The reference service's pair targets (issue #17 item 4), run pair by pair by the bench harness
 * (bench/lib/side-protocol.ts): the webhook intake end to end against a hand-written fastify + pg route that sends
 * the same statements. Profiles and the mixed checkout+webhook load: bench/notes/service.md,
 * bench/service/mixed-load.ts.
 */
import type { PairTarget } from '../lib/side-protocol.js';

const INTAKE_SIDE = 'bench/service/intake-side.ts';

export const targets: readonly PairTarget[] = Object.freeze([
  {
    id: 'service-webhook-intake',
    group: 'Reference service (issue 17)',
    title:
      'PostgreSQL webhook intake end to end (signed Stripe payment_intent.succeeded → verification → receipt → ' +
      'applyProviderEvent → journal), reference service ÷ hand-written fastify + pg route of the same statements, ' +
      '8 connections',
    a: {
      id: 'postgres/service-intake@c8',
      label: 'payonce serve (createService) webhook intake',
      backend: 'postgres',
      script: INTAKE_SIDE,
      args: ['service', '--connections', '8'],
    },
    b: {
      id: 'postgres/bare-intake@c8',
      label: 'hand-written fastify + pg route, same 16 statements',
      backend: 'postgres',
      script: INTAKE_SIDE,
      args: ['bare', '--connections', '8'],
    },
    min: 0.8,
  },
]);
