import { access, writeFile } from 'node:fs/promises';
import type { CliIo } from '../cli-io.js';
import { CliUsageError } from '../cli-usage-error.js';
import { STORM_ADAPTER_TEMPLATE } from '../storm-adapter-template.js';

/**
 * `payonce storm init [file]`: writes the commented adapter template (default `storm.adapter.ts`) for
 * `payonce storm --adapter` (docs/storm-your-app.md). Returns the path written.
 * @throws {CliUsageError} the file exists already (exit status 2; nothing is overwritten).
 */
export async function runStormInit(file: string, io: CliIo): Promise<string> {
  const exists = await access(file).then(
    () => true,
    () => false,
  );
  if (exists) throw new CliUsageError(`${file} exists already; payonce storm init overwrites nothing`);
  await writeFile(file, STORM_ADAPTER_TEMPLATE, { flag: 'wx' });
  io.out(`wrote ${file}: adapt the lines marked ADAPT, then run payonce storm --adapter ${file} --start "…"`);
  return file;
}
