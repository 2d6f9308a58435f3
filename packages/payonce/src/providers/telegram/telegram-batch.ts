import type { TelegramUpdate } from './telegram-update.js';

/** How the updates of one batch may run. See `TelegramPollerOptions.ordering`. */
export type TelegramOrdering = 'update' | 'chat' | 'none';

/** What became of one update: `applied` now, `duplicate` (its receipt was already completed), or not done yet. */
export type TelegramUpdateOutcome = 'applied' | 'duplicate' | 'in-progress' | 'failed' | 'skipped';

/** True for an outcome whose receipt is committed. */
export const isCommitted = (outcome: TelegramUpdateOutcome | undefined): boolean =>
  outcome === 'applied' || outcome === 'duplicate';

/** The lanes of a batch: each runs in order and stops at its first update that is not committed. */
function lanesOf(
  updates: readonly TelegramUpdate[],
  ordering: TelegramOrdering,
  chatOf: (update: TelegramUpdate) => string | null,
): TelegramUpdate[][] {
  if (ordering === 'update') return [[...updates]];
  if (ordering === 'none') return updates.map((update) => [update]);
  const lanes = new Map<string, TelegramUpdate[]>();
  const loose: TelegramUpdate[][] = [];
  for (const update of updates) {
    const chat = chatOf(update);
    if (chat === null) loose.push([update]);
    else lanes.set(chat, [...(lanes.get(chat) ?? []), update]);
  }
  return [...lanes.values(), ...loose];
}

/**
 * Runs one `getUpdates` batch through `apply` (the receipt) and returns each `update_id`'s outcome. Updates are
 * taken in `update_id` order, each id once. `update` ordering: one at a time, stopping at the first update not
 * committed (the rest are `skipped`, served again). `chat`: one lane per chat (`chatOf`), up to `concurrency` lanes
 * at once; a lane stops at its first update not committed, so a chat's update never runs before the previous one of
 * that chat committed. `none`: up to `concurrency` updates at once, in no order.
 */
export async function runBatch(
  updates: readonly TelegramUpdate[],
  options: {
    readonly ordering: TelegramOrdering;
    readonly concurrency: number;
    readonly chatOf: (update: TelegramUpdate) => string | null;
  },
  apply: (update: TelegramUpdate) => Promise<TelegramUpdateOutcome>,
): Promise<Map<number, TelegramUpdateOutcome>> {
  const seen = new Set<number>();
  const ordered = [...updates]
    .sort((a, b) => a.update_id - b.update_id)
    .filter((u) => !seen.has(u.update_id) && seen.add(u.update_id));
  const outcomes = new Map<number, TelegramUpdateOutcome>();
  const lanes = lanesOf(ordered, options.ordering, options.chatOf);
  let next = 0;
  const worker = async () => {
    for (let lane = lanes[next++]; lane !== undefined; lane = lanes[next++]) {
      let blocked = false;
      for (const update of lane) {
        if (blocked) {
          outcomes.set(update.update_id, 'skipped');
          continue;
        }
        const outcome = await apply(update);
        outcomes.set(update.update_id, outcome);
        blocked = !isCommitted(outcome);
      }
    }
  };
  const workers = Math.min(lanes.length, options.ordering === 'update' ? 1 : options.concurrency);
  await Promise.all(Array.from({ length: workers }, worker));
  return outcomes;
}
