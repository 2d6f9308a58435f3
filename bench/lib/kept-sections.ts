import { readFile } from 'node:fs/promises';

/** Sections of RESULTS.md written by other bench scripts, between `<!-- bench:<name>:start … -->` and `<!-- bench:<name>:end -->`. */
const SECTION = /<!-- bench:(replicas|waited):start[^>]*-->[\s\S]*?<!-- bench:\1:end -->/g;

/**
 * `rendered` (a fresh RESULTS.md of `npm run bench`) with the sections other scripts wrote into the current file at
 * `path` appended (bench/replica-soak.ts, bench/waited-duplicate.ts), so a run of one never deletes the others'.
 */
export async function withKeptSections(rendered: string, path: string): Promise<string> {
  const current = await readFile(path, 'utf8').catch(() => '');
  const kept = current.match(SECTION) ?? [];
  return kept.length === 0 ? rendered : `${rendered.trimEnd()}\n\n${kept.join('\n\n')}\n`;
}
