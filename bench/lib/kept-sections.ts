import { readFile } from 'node:fs/promises';

/** Markers of the SIGKILL soak's section of RESULTS.md (written by bench/soak-sigkill.ts, not by `npm run bench`). */
export const SOAK_SECTION_START = '<!-- soak:sigkill:start (written by bench/soak-sigkill.ts --write-results) -->';
export const SOAK_SECTION_END = '<!-- soak:sigkill:end -->';

/**
 * `rendered` with the soak section of the file at `path` (if it has one) appended, so regenerating RESULTS.md
 * from a bench run keeps the last soak result instead of deleting it.
 */
export async function keepSoakSection(path: string, rendered: string): Promise<string> {
  const current = await readFile(path, 'utf8').catch(() => '');
  const start = current.indexOf(SOAK_SECTION_START);
  const end = current.indexOf(SOAK_SECTION_END);
  if (start === -1 || end === -1 || rendered.includes(SOAK_SECTION_START)) return rendered;
  return `${rendered.trimEnd()}\n\n${current.slice(start, end + SOAK_SECTION_END.length)}\n`;
}
