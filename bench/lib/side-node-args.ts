/**
 * How the bench starts a process that runs payonce: `node [--expose-gc] --import tsx --import
 * ./bench/lib/compiled-payonce.mjs …`, so every payonce module comes from dist/ (the compiled package, as deployed) and
 * only the bench's own TypeScript goes through tsx. `BENCH_SOURCES=tsx` runs payonce's TypeScript under tsx instead
 * (the bench before 2026-12-01; kept to measure what tsx's transform costs, bench/notes/guard-cpu.md).
 */
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');
const HOOK = join(import.meta.dirname, 'compiled-payonce.mjs');

/** True when payonce's modules are loaded from dist/ (the default), false under `BENCH_SOURCES=tsx`. */
export function usesCompiledPayonce(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.BENCH_SOURCES !== 'tsx';
}

/** The node options (before the script) of a bench process that runs payonce (the hook by its absolute path). */
export function payonceNodeArgs(env: NodeJS.ProcessEnv = process.env): string[] {
  return usesCompiledPayonce(env) ? ['--import', 'tsx', '--import', HOOK] : ['--import', 'tsx'];
}

/** Every `.ts` under `dir` (relative to `root`), recursively. */
function typeScriptFiles(root: string, dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...typeScriptFiles(root, path));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/**
 * The src/ files (relative to `root`, the repository by default) whose compiled copy in dist/ is missing or older
 * than the source; empty when dist/ is current. The bench refuses to run with a stale dist/ (it would measure other
 * code than the tree's).
 */
export function staleCompiledFiles(root = ROOT): string[] {
  return typeScriptFiles(root, 'src').filter((source) => {
    const compiled = join(root, 'dist', `${relative('src', source).slice(0, -3)}.js`);
    try {
      return statSync(compiled).mtimeMs < statSync(join(root, source)).mtimeMs;
    } catch {
      return true;
    }
  });
}
