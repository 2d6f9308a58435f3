/**
 * Adds the rows of a partial run to the latest full run's results and re-renders its summary:
 *   npm run bench -w @payonce/bench -- --only 'stack-*'     # writes out/<date>.json
 *   npx tsx merge-run.ts out/<date>.json                    # into results/<latest>.json and .md
 * For a target added after the last full run: its rows land in the results summary, each with the date, duration
 * and load of the run that measured it (`lib/merge-results.ts`). A later full run measures them again.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { BenchResults } from './lib/bench-results.js';
import { type MergedResults, mergeRun } from './lib/merge-results.js';
import { CAUSES } from './lib/notes.js';
import { latestResult } from './lib/result-files.js';
import { renderSummary } from './lib/results-markdown.js';

const [partialPath, intoArg] = process.argv.slice(2);
if (partialPath === undefined) throw new Error('usage: npx tsx merge-run.ts out/<date>.json [results/<date>.json]');
const intoPath = intoArg ?? latestResult(undefined, 'json');
const partial = JSON.parse(await readFile(partialPath, 'utf8')) as BenchResults;
const into = JSON.parse(await readFile(intoPath, 'utf8')) as MergedResults;
const merged = mergeRun(into, partial);
await writeFile(intoPath, `${JSON.stringify(merged, null, 2)}\n`);
const summaryPath = intoPath.replace(/\.json$/, '.md');
await writeFile(summaryPath, renderSummary(merged, { causes: CAUSES, jsonFile: basename(intoPath) }));
process.stderr.write(
  `added ${partial.targets.map((t) => t.target.id).join(', ')} to ${intoPath}; wrote ${summaryPath} (format it: npx biome format --write ${intoPath})\n`,
);
