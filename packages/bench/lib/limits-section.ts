/**
 * The physical limits of this machine (pgbench of the same statements, redis-benchmark of the same commands),
 * from `limits/limits.ts` when it exists (TEAM.md contract: `physicalLimits(log): Promise<string>`, a
 * markdown section). A missing file or a failing probe is reported in its place, never fatal.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export const LIMITS_FILE = join(import.meta.dirname, '..', 'limits', 'limits.ts');

/** What became of the limits section in this run. */
export interface LimitsSection {
  /** The markdown `physicalLimits` returned, or null. */
  readonly markdown: string | null;
  /** Why there is no markdown (file missing, no export, an error), or null. */
  readonly problem: string | null;
}

/** Calls `physicalLimits(log)` of `file` if it exists. */
export async function physicalLimitsSection(log: (line: string) => void, file = LIMITS_FILE): Promise<LimitsSection> {
  if (!existsSync(file)) {
    log('limits/limits.ts not found: this run has no physical limits');
    return { markdown: null, problem: 'limits/limits.ts is missing in this run' };
  }
  try {
    const module = (await import(pathToFileURL(file).href)) as {
      physicalLimits?: (log: (line: string) => void) => Promise<string>;
    };
    if (typeof module.physicalLimits !== 'function') {
      return { markdown: null, problem: 'limits/limits.ts exports no physicalLimits(log)' };
    }
    log('physical limits (limits/limits.ts)');
    return { markdown: await module.physicalLimits(log), problem: null };
  } catch (error) {
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    log(`physical limits failed: ${message}`);
    return { markdown: null, problem: `physicalLimits failed: ${message}` };
  }
}
