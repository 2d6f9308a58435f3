/**
 * The command line of `npm run bench` (`run-bench.ts`): `--only ID[,ID…]` reruns just those targets' pairs
 * (an ID ending in `*` selects every target whose id starts with what precedes it), `--list` prints the target ids.
 */
import type { PairTarget } from './side-protocol.js';

export interface BenchArgs {
  /** Target ids (or `prefix*` patterns) to run; null = every target (a full run). */
  readonly only: readonly string[] | null;
  readonly list: boolean;
}

/**
 * Parses `argv` (without node and the script).
 * @throws {Error} for an unknown flag, or `--only` without ids.
 */
export function parseBenchArgs(argv: readonly string[]): BenchArgs {
  const only: string[] = [];
  let sawOnly = false;
  let list = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--list') list = true;
    else if (arg === '--only' || arg.startsWith('--only=')) {
      sawOnly = true;
      const value = arg === '--only' ? argv[++i] : arg.slice('--only='.length);
      if (value === undefined || value.startsWith('--')) throw new Error('--only needs target ids: --only ID[,ID]');
      only.push(
        ...value
          .split(',')
          .map((id) => id.trim())
          .filter(Boolean),
      );
    } else throw new Error(`unknown argument ${arg} (use --only ID[,ID] or --list)`);
  }
  if (sawOnly && only.length === 0) throw new Error('--only needs target ids: --only ID[,ID]');
  return { only: sawOnly ? only : null, list };
}

/**
 * The targets `only` selects, in their original order (all of them when `only` is null).
 * @throws {Error} when an id or pattern matches no target (the known ids are listed).
 */
export function selectTargets<T extends Pick<PairTarget, 'id'>>(
  targets: readonly T[],
  only: readonly string[] | null,
): T[] {
  if (only === null) return [...targets];
  const matches = (pattern: string, id: string) =>
    pattern.endsWith('*') ? id.startsWith(pattern.slice(0, -1)) : id === pattern;
  const unknown = only.filter((pattern) => !targets.some((t) => matches(pattern, t.id)));
  if (unknown.length > 0) {
    throw new Error(`no target ${unknown.join(', ')}; known: ${targets.map((t) => t.id).join(', ')}`);
  }
  return targets.filter((t) => only.some((pattern) => matches(pattern, t.id)));
}
