import { writeFile } from 'node:fs/promises';
import type { CliIo } from './cli-io.js';
import type { StormReportFiles } from './storm-report-files.js';

/** Why a storm gave no verdict: the target or the sandbox did not answer, the app never became healthy or exited. */
export interface StormRunError {
  readonly code: string;
  readonly message: string;
}

/** The renderers of the reports of a storm that gave no verdict (from `@payonce/storm`, loaded by the command). */
export interface StormErrorRenderers {
  /** The JUnit XML: one testcase with an `<error>` carrying the code and the message. */
  junitError(code: string, message: string): string;
  /** The HTML page saying the storm failed, with the code and the message. */
  htmlError(code: string, message: string): string;
}

/**
 * Writes the reports `files` asks for about a storm that gave no verdict, saying where on `io`: the JSON report
 * `{ passed: false, error: { code, message }, results: [] }`, the JUnit XML and the HTML page naming the cause, so a
 * CI job reading them sees why, not a missing file.
 * @throws the file system's error when a file cannot be written.
 */
export async function writeStormErrorReports(
  files: StormReportFiles,
  error: StormRunError,
  render: StormErrorRenderers,
  io: CliIo,
): Promise<void> {
  const { code, message } = error;
  if (files.report !== undefined) {
    const failure = { passed: false, error: { code, message }, results: [] };
    await writeFile(files.report, `${JSON.stringify(failure, null, 2)}\n`);
    io.out(`report written to ${files.report}`);
  }
  if (files.junit !== undefined) {
    await writeFile(files.junit, render.junitError(code, message));
    io.out(`JUnit report written to ${files.junit}`);
  }
  if (files.html !== undefined) {
    await writeFile(files.html, render.htmlError(code, message));
    io.out(`HTML report written to ${files.html}`);
  }
}
