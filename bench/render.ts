/**
 * Re-renders `bench/RESULTS.md` from `bench/results.json` with the current method text and `bench/notes/*.md` (no
 * measuring): the numbers are those of the run that wrote the JSON. Use it after editing a note:
 *   npx tsx bench/render.ts [dir]
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { BenchResults } from './lib/bench-results.js';
import { withKeptSections } from './lib/kept-sections.js';
import { CAUSES, METHOD } from './lib/notes.js';
import { readNotes } from './lib/notes-dir.js';
import { renderResults } from './lib/results-markdown.js';

const dir = process.argv[2] ?? import.meta.dirname;
const results = JSON.parse(await readFile(join(dir, 'results.json'), 'utf8')) as BenchResults;
if (results.format !== 2) throw new Error(`${dir}/results.json is not of the pair-by-pair format (run npm run bench)`);
const resultsPath = join(dir, 'RESULTS.md');
const markdown = renderResults(results, { notes: await readNotes(), method: METHOD, causes: CAUSES });
await writeFile(resultsPath, await withKeptSections(markdown, resultsPath));
