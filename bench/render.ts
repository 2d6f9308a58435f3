/**
 * Re-renders `bench/RESULTS.md` from `bench/results.json` with the current notes (no measuring): the numbers are
 * those of the run that wrote the JSON. `npm run bench` does this itself; use it after editing `lib/notes.ts`.
 */
import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { withKeptSections } from './lib/kept-sections.js';
import { CAUSES, NOTES } from './lib/notes.js';
import { type BenchReport, renderMarkdown } from './lib/report.js';

const dir = process.argv[2] ?? import.meta.dirname;
const report = JSON.parse(await readFile(join(dir, 'results.json'), 'utf8')) as BenchReport;
const resultsPath = join(dir, 'RESULTS.md');
await writeFile(resultsPath, await withKeptSections(renderMarkdown(report, NOTES, CAUSES), resultsPath));
execFileSync(join(import.meta.dirname, '..', 'node_modules', '.bin', 'biome'), [
  'format',
  '--write',
  join(dir, 'RESULTS.md'),
]);
