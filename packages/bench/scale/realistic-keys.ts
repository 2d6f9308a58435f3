import { createHash } from 'node:crypto';

/**
 * Realistic receipt keys for the scale bench: the providers of `shared/fixtures/providers` in
 * plausible proportions, each with an external id of its provider's shape and length. The seeded rows
 * (`seed-statements.ts`) and the timed deliveries (`scale-side.ts`) draw from the same mix, so a timed claim lands at
 * a random place in the primary-key B-tree among the stored receipts, as a live delivery would — not in a
 * corner of its own (the in-process rows' `bench` provider with sequential ids would append to one hot page).
 *
 * Shapes (hex stands in for each provider's alphabet; lengths are the providers'):
 * - stripe, 60 %: `evt_` + 24 chars (28)
 * - adyen, 15 %: pspReference, 16 upper-case chars
 * - paypal, 10 %: `WH-` + 17 + `-` + 17 upper-case chars (38)
 * - mollie, 8 %: `tr_` + 10 chars (13)
 * - checkout, 7 %: `evt_` + 26 chars (30)
 */
export interface ProviderShare {
  readonly provider: string;
  /** Cumulative upper bound, in percent: the provider of a draw r ∈ [0, 100) is the first with r < upTo. */
  readonly upTo: number;
}

export const PROVIDER_MIX: readonly ProviderShare[] = Object.freeze([
  { provider: 'stripe', upTo: 60 },
  { provider: 'adyen', upTo: 75 },
  { provider: 'paypal', upTo: 85 },
  { provider: 'mollie', upTo: 93 },
  { provider: 'checkout', upTo: 100 },
]);

/** The external id of `provider` built from 64 hex digits of entropy (`h`). */
export function externalIdOf(provider: string, h: string): string {
  switch (provider) {
    case 'stripe':
      return `evt_${h.slice(0, 24)}`;
    case 'adyen':
      return h.slice(0, 16).toUpperCase();
    case 'paypal':
      return `WH-${h.slice(0, 17).toUpperCase()}-${h.slice(17, 34).toUpperCase()}`;
    case 'mollie':
      return `tr_${h.slice(0, 10)}`;
    default:
      return `evt_${h.slice(0, 26)}`;
  }
}

/** A realistic key: provider and external id. */
export interface RealisticKey {
  readonly provider: string;
  readonly externalId: string;
}

/**
 * The key of delivery `id` of a timed run tagged `tag` (unique per side process): SHA-256 of `tag:id` chooses
 * the provider and the external id, so the keys of one run are distinct and spread over the whole key space.
 */
export function realisticKey(tag: string, id: string): RealisticKey {
  const h = createHash('sha256').update(`${tag}:${id}`).digest('hex');
  const r = Number.parseInt(h.slice(56, 64), 16) % 100;
  const provider = PROVIDER_MIX.find((share) => r < share.upTo)?.provider ?? 'stripe';
  return { provider, externalId: externalIdOf(provider, h) };
}
