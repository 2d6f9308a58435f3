/**
 * Re-renders a run's summary from its JSON (no measuring), e.g. after the summary's format changed:
 *   npx tsx render.ts results/2026-12-06.json      # writes results/2026-12-06.md (and -limits.md)
 */
import { readFile, writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { BenchResults } from './lib/bench-results.js';
import { CAUSES } from './lib/notes.js';
import { latestResult } from './lib/result-files.js';
import { renderSummary } from './lib/results-markdown.js';

const jsonPath = process.argv[2] ?? latestResult(undefined, 'json');
const results = JSON.parse(await readFile(jsonPath, 'utf8')) as BenchResults;
if (results.format !== 2) throw new Error(`${jsonPath} is not of the pair-by-pair format (run npm run bench)`);
const summaryPath = jsonPath.replace(/\.json$/, '.md');
await writeFile(summaryPath, renderSummary(results, { causes: CAUSES, jsonFile: basename(jsonPath) }));
if (results.limits?.markdown) await writeFile(jsonPath.replace(/\.json$/, '-limits.md'), results.limits.markdown);
process.stderr.write(`wrote ${summaryPath}\n`);
