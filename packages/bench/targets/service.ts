/**
 * The reference service's pair targets, run pair by pair by the bench harness
 * (lib/side-protocol.ts): the webhook intake end to end against a hand-written fastify + pg route that sends
 * the same statements. Profiles and the mixed checkout+webhook load: notes/service.md,
 * service/mixed-load.ts.
 */
import type { PairTarget } from '../lib/side-protocol.js';

const INTAKE_SIDE = 'service/intake-side.ts';

export const targets: readonly PairTarget[] = Object.freeze([
  {
    id: 'service-webhook-intake',
    group: 'Reference service',
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
