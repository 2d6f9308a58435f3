/**
 * The `offset` of the next `getUpdates` after a batch: the lowest `update_id` of the batch whose receipt is not
 * committed (so Telegram serves it again, with everything after it), or the highest id + 1 when every update is
 * committed. An empty batch keeps `current`. Telegram forgets every update below the offset it is given, so an
 * offset never passes an update whose effect is not durable.
 * @see https://core.telegram.org/bots/api#getupdates ("An update is considered confirmed as soon as getUpdates is
 * called with an offset higher than its update_id"); docs/providers/telegram.md "Long polling".
 * @example nextOffset(undefined, [7, 8, 9], new Set([7, 9])) // 8
 */
export function nextOffset(
  current: number | undefined,
  batch: readonly number[],
  committed: ReadonlySet<number>,
): number | undefined {
  if (batch.length === 0) return current;
  const ids = [...batch].sort((a, b) => a - b);
  const pending = ids.find((id) => !committed.has(id));
  const next = pending ?? (ids[ids.length - 1] as number) + 1;
  return current === undefined ? next : Math.max(current, next);
}
