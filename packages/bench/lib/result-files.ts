/**
 * Where the bench writes what it measured: `results/<YYYY-MM-DD>.json` and `results/<YYYY-MM-DD>.md` for a full
 * `npm run bench`, `results/<YYYY-MM-DD>-<name>.md` (and `.json`) for the scripts that measure one thing apart (the
 * relay bench, the soaks, the waited duplicates). Partial and smoke runs go to `out/` (not committed). Nothing else is
 * rewritten: a run adds or replaces the files of its own date.
 */
import { readdirSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The committed results folder. */
export const RESULTS_DIR = join(import.meta.dirname, '..', 'results');

/** Where partial (`--only`) and smoke (`BENCH_QUICK=1`) runs write; gitignored. */
export const OUT_DIR = join(import.meta.dirname, '..', 'out');

/** `2026-12-06` of an ISO time `2026-12-06T04:14:21.074Z` (UTC). */
export function runDate(generatedAt: string): string {
  const date = generatedAt.slice(0, 10);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) throw new Error(`not an ISO time: ${generatedAt}`);
  return date;
}

/** The path of a result file: `<dir>/<date>[-<name>].<ext>`. */
export function resultPath(dir: string, generatedAt: string, ext: 'json' | 'md', name?: string): string {
  return join(dir, `${runDate(generatedAt)}${name === undefined ? '' : `-${name}`}.${ext}`);
}

/** `markdown` without the `<!-- … -->` marker lines older scripts put around their section. */
export function withoutMarkers(markdown: string): string {
  return markdown
    .split('\n')
    .filter((line) => !/^<!--.*-->$/.test(line.trim()))
    .join('\n');
}

/**
 * Writes `results/<date>-<name>.md` (and `.json` when `json` is given) of a script that measures one thing apart.
 * @returns the markdown file's path.
 */
export async function writeNamedResult(
  name: string,
  generatedAt: string,
  markdown: string,
  json?: unknown,
): Promise<string> {
  await mkdir(RESULTS_DIR, { recursive: true });
  const path = resultPath(RESULTS_DIR, generatedAt, 'md', name);
  await writeFile(path, `${withoutMarkers(markdown).trim()}\n`);
  if (json !== undefined)
    await writeFile(resultPath(RESULTS_DIR, generatedAt, 'json', name), `${JSON.stringify(json, null, 2)}\n`);
  return path;
}

/**
 * The newest committed result of a named script (`results/<date>-<name>.<ext>`, the latest date) or of the full run
 * (`name` undefined: `results/<date>.<ext>`).
 * @throws when there is none.
 */
export function latestResult(name: string | undefined, ext: 'json' | 'md', dir = RESULTS_DIR): string {
  const pattern = new RegExp(`^\\d{4}-\\d{2}-\\d{2}${name === undefined ? '' : `-${name}`}\\.${ext}$`);
  const found = readdirSync(dir)
    .filter((file) => pattern.test(file))
    .sort();
  const last = found.at(-1);
  if (last === undefined) throw new Error(`no ${name ?? 'full run'} result (.${ext}) in ${dir}`);
  return join(dir, last);
}
