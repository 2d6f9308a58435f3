import { readFile, writeFile } from 'node:fs/promises';
import type { BenchResults } from './bench-results.js';
import { metText, pairOrderText, ratioText } from './results-markdown.js';

/** The README's Performance numbers live between these markers; a full `npm run bench` rewrites what is between. */
export const README_START = '<!-- bench:ratios:start (written by npm run bench from bench/results.json) -->';
export const README_END = '<!-- bench:ratios:end -->';

/**
 * The README's Performance numbers from a full run's `results`: every target's median pair ratio (min–max) and
 * whether it was met — the same numbers as the table at the top of `bench/RESULTS.md`.
 */
export function renderReadmeSection(results: BenchResults): string {
  const judged = results.targets.filter((t) => t.met !== null);
  const met = judged.filter((t) => t.met === true).length;
  const lines = [
    README_START,
    `Run of ${results.generatedAt.slice(0, 10)} (${Math.round(results.durationSec)} s, load average ` +
      `${results.loadAverage.start.toFixed(1)} at start, ${results.loadAverage.end.toFixed(1)} at end). Each ratio is the ` +
      `median of per-pair ratios A ÷ B (each pair: ${pairOrderText(results)}, each side in a fresh process), with ` +
      'their min–max.',
    '',
    '| target | A ÷ B median (min–max) | goal met |',
    '|---|---:|---|',
    ...results.targets.map(
      (t) =>
        `| ${t.target.title.replaceAll('|', '\\|')} | ${ratioText(t)} | ${metText(t)}${t.target.min === null ? '' : ` (≥ ${t.target.min}×)`} |`,
    ),
    '',
    `${met} of ${judged.length} targets met in that run; bench/RESULTS.md has every pair and says why each miss is missed.`,
    README_END,
  ];
  return lines.join('\n');
}

/**
 * Rewrites the part of `readmePath` between `README_START` and `README_END` with `renderReadmeSection(results)`.
 * Returns false (and changes nothing) when the markers are missing.
 */
export async function updateReadme(readmePath: string, results: BenchResults): Promise<boolean> {
  const text = await readFile(readmePath, 'utf8');
  const start = text.indexOf(README_START);
  const end = text.indexOf(README_END);
  if (start < 0 || end < start) return false;
  await writeFile(
    readmePath,
    text.slice(0, start) + renderReadmeSection(results) + text.slice(end + README_END.length),
  );
  return true;
}
