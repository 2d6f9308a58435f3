import type { GroupCommit } from '../../../../packages/payonce/src/stores/sql/group-commit.js';

/** Resolves after every microtask chain started now has run. */
export const settled = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The gate of a batch (a group commit with one batch slot): a first caller holding the only transaction until the
 * returned `open()`, so that the callers started before `open()` queue and then run as ONE batch.
 */
export async function gated(group: GroupCommit<unknown>): Promise<() => Promise<void>> {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let reached!: () => void;
  const atGate = new Promise<void>((resolve) => (reached = resolve));
  const gate = group.run(async () => {
    reached();
    await held;
  });
  await atGate;
  return async () => {
    await settled();
    release();
    await gate;
  };
}
