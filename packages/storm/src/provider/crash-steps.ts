import type { BaseStormContext } from './base-storm-context.js';
import { errorText } from './provider-scenario-run.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A target that may be killed and restarted (`crashAndRestart`), or says why not (`missing.crash`). */
export interface CrashableTarget {
  crashAndRestart?(): Promise<{ note: string }>;
  readonly missing?: Readonly<{ crash?: string }>;
}

/**
 * The target's `crashAndRestart` bound to it, or the reason to skip the crash scenario (`missing.crash`, or that
 * the target has no such capability).
 */
export function crashOf(target: CrashableTarget): (() => Promise<{ note: string }>) | string {
  const crash = target.crashAndRestart?.bind(target);
  return crash ?? target.missing?.crash ?? 'the target cannot be killed and restarted (no crashAndRestart)';
}

/**
 * Sends `call` while `crash` kills the merchant (both at once) and returns the call's exchange with the crash's
 * note, or `null` after recording a failure when the crash and restart failed.
 */
export async function callDuringCrash<R, E>(
  ctx: BaseStormContext<R>,
  crash: () => Promise<{ note: string }>,
  call: () => Promise<E>,
): Promise<{ first: E; note: string } | null> {
  const [first, killed] = await Promise.all([call(), crash().catch((error: unknown) => error)]);
  if (killed instanceof Error || !(typeof killed === 'object' && killed !== null && 'note' in killed)) {
    ctx.expect(false, `crash and restart failed: ${errorText(killed)}`);
    return null;
  }
  return { first, note: String(killed.note) };
}

/** The provider's repeat of a call after no answer (or the merchant's own failure), until `answered` or the deadline. */
export async function repeatUntilAnswered<R, E>(
  ctx: BaseStormContext<R>,
  call: () => Promise<E>,
  answered: (exchange: E) => boolean,
): Promise<E> {
  for (;;) {
    const exchange = await call();
    if (answered(exchange) || ctx.timeLeftMs() === 0) return exchange;
    await sleep(100);
  }
}
