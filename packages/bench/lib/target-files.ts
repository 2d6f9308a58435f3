/**
 * Finds the bench's targets: every `targets/*.ts` file (file-name order) exports
 * `targets: readonly PairTarget[]` (TEAM.md contract). core.ts is the harness's; service.ts and scale.ts come from
 * other parts of the bench, and a run without them says so in its log and in its summary instead of failing.
 *
 * A target file may also export set-up the pairs cannot carry (e.g. seeding a million receipts once):
 * `prepare(log, ids)`, called once before the first of its selected targets with their ids, and `cleanup(log)`,
 * called once at the end of the run (in a `finally`) when `prepare` was called or attempted.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { PairTarget } from './side-protocol.js';

/** The target files a full run expects; a missing one is reported, never fatal. */
export const EXPECTED_TARGET_FILES: readonly string[] = ['core.ts', 'service.ts', 'scale.ts', 'stack.ts'];

/** A target file's optional set-up and clean-up around its targets. */
export interface TargetFileHooks {
  readonly file: string;
  /** Ids of the file's targets (the ones that loaded). */
  readonly ids: readonly string[];
  readonly prepare?: (log: (line: string) => void, ids: readonly string[]) => Promise<void>;
  readonly cleanup?: (log: (line: string) => void) => Promise<void>;
}

/** What was found in `targets/`. */
export interface LoadedTargets {
  readonly targets: readonly PairTarget[];
  /** Per file that loaded: its targets' ids and its optional `prepare` / `cleanup`. */
  readonly hooks: readonly TargetFileHooks[];
  /** `file: n targets` per file that loaded. */
  readonly files: readonly { readonly file: string; readonly count: number }[];
  /** Files that are expected but absent, or failed to load or to validate, with why. */
  readonly problems: readonly string[];
}

/** Problems of one file's `targets` (shape only; ids across files are checked by `loadTargets`). */
export function targetProblems(file: string, exported: unknown): string[] {
  if (!Array.isArray(exported)) return [`${file}: exports no \`targets\` array`];
  const problems: string[] = [];
  for (const [i, t] of (exported as Partial<PairTarget>[]).entries()) {
    const where = `${file} target ${t?.id ?? `#${i}`}`;
    if (typeof t?.id !== 'string' || t.id === '') problems.push(`${where}: no id`);
    if (!t?.a?.script || !t?.b?.script) problems.push(`${where}: a side without a script`);
    if (t?.min !== null && typeof t?.min !== 'number') problems.push(`${where}: min is neither a number nor null`);
    if (t?.pairs !== undefined && t.pairs < 5) problems.push(`${where}: ${t.pairs} pairs (the contract asks ≥ 5)`);
  }
  return problems;
}

/** Imports every `*.ts` of `dir` (default `targets/`); never throws for a broken or missing file. */
export async function loadTargets(dir = join(import.meta.dirname, '..', 'targets')): Promise<LoadedTargets> {
  const names = (await readdir(dir).catch(() => [] as string[])).filter((f) => f.endsWith('.ts')).sort();
  const problems: string[] = EXPECTED_TARGET_FILES.filter((f) => !names.includes(f)).map(
    (f) => `targets/${f} is missing: its targets are not in this run`,
  );
  const targets: PairTarget[] = [];
  const files: { file: string; count: number }[] = [];
  const hooks: TargetFileHooks[] = [];
  for (const name of names) {
    const file = `targets/${name}`;
    try {
      const module = (await import(pathToFileURL(join(dir, name)).href)) as {
        targets?: unknown;
        prepare?: unknown;
        cleanup?: unknown;
      };
      const shape = targetProblems(file, module.targets);
      if (shape.length > 0) {
        problems.push(...shape);
        continue;
      }
      const list = module.targets as PairTarget[];
      const clash = list.filter((t) => targets.some((known) => known.id === t.id));
      if (clash.length > 0)
        problems.push(`${file}: target ids already taken, skipped: ${clash.map((t) => t.id).join(', ')}`);
      const fresh = list.filter((t) => !clash.includes(t));
      targets.push(...fresh);
      files.push({ file, count: fresh.length });
      hooks.push({
        file,
        ids: fresh.map((t) => t.id),
        ...(typeof module.prepare === 'function' ? { prepare: module.prepare as TargetFileHooks['prepare'] } : {}),
        ...(typeof module.cleanup === 'function' ? { cleanup: module.cleanup as TargetFileHooks['cleanup'] } : {}),
      });
    } catch (error) {
      problems.push(`${file} failed to load: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return { targets, hooks, files, problems };
}
