import { readFile } from 'node:fs/promises';

/** Markers of the SIGKILL soak's section of RESULTS.md (written by bench/soak-sigkill.ts, not by `npm run bench`). */
export const SOAK_SECTION_START = '<!-- soak:sigkill:start (written by bench/soak-sigkill.ts --write-results) -->';
export const SOAK_SECTION_END = '<!-- soak:sigkill:end -->';

/**
 * A section another bench script owns: from `<!-- NAME:start … -->` to `<!-- NAME:end -->`, NAME being e.g.
 * `soak:sigkill`, `relay-bench`, `bench:replicas`, `bench:waited`.
 */
const OWNED_SECTION = /<!-- ([a-z][a-z:-]*):start[^>]*-->[\s\S]*?<!-- \1:end -->/g;

/**
 * `rendered` (a fresh RESULTS.md from `npm run bench`) with every section that other scripts wrote into the current
 * file at `path` appended in their current order (the SIGKILL soak, the relay bench, the replica soak, the waited
 * duplicates), so a run of one script never deletes another's result. A section `rendered` already has is not doubled.
 */
export async function withKeptSections(rendered: string, path: string): Promise<string> {
  const current = await readFile(path, 'utf8').catch(() => '');
  const kept = (current.match(OWNED_SECTION) ?? []).filter(
    (section) => !rendered.includes(section.split('\n')[0] ?? ''),
  );
  return kept.length === 0 ? rendered : `${rendered.trimEnd()}\n\n${kept.join('\n\n')}\n`;
}
