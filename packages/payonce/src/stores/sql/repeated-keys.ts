import type { InsertClaimRequest } from '../../core/store.js';
import { keyId } from './batch-statements.js';

/**
 * `all` split into the entries a group-commit batch runs and those whose claim key an earlier entry of it claims
 * (`later`), each list in arrival order: a completion waits for the commit (`writeBeforeCommit`), so a repeated key
 * in the same transaction would find the receipt still in flight and be answered "in progress" instead of replaying.
 * Entries without a claim always run in the batch.
 */
export function splitRepeatedKeys<E extends { readonly item: { readonly claim: InsertClaimRequest | null } }>(
  all: readonly E[],
): { entries: E[]; later: E[] } {
  const seen = new Set<string>();
  const entries: E[] = [];
  const later: E[] = [];
  for (const entry of all) {
    const { claim } = entry.item;
    const id = claim === null ? null : keyId(claim.key);
    if (id !== null && seen.has(id)) later.push(entry);
    else {
      if (id !== null) seen.add(id);
      entries.push(entry);
    }
  }
  return { entries, later };
}
