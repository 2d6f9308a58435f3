/**
 * How the bench starts a process that runs payonce: `node [--expose-gc] --import tsx <script>` from the bench's own
 * folder. The bench imports the library by its npm specifiers (`payonce/internal/…`), which resolve through
 * node_modules to the compiled package's dist/ (what `npm run build` emits and a deployment runs), so only the bench's
 * own TypeScript goes through tsx: tsx wraps every named function in a `__name(…)` call, a per-request tax the
 * published package does not pay (notes/guard-cpu.md). `BENCH_SOURCES=tsx` points tsx at the repository's
 * tsconfig.json, whose `paths` map every package specifier to its TypeScript source, to measure what that costs.
 */
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/** The bench package's folder: every bench process's working directory. */
export const BENCH_DIR = join(import.meta.dirname, '..');

/** The repository root (the workspace). */
export const REPO_ROOT = join(BENCH_DIR, '..', '..');

/** The workspace packages the bench loads, whose dist/ must be current. */
export const MEASURED_PACKAGES = ['payonce', 'sandbox', 'service', 'cli'] as const;

/** True when payonce's modules are loaded from dist/ (the default), false under `BENCH_SOURCES=tsx`. */
export function usesCompiledPayonce(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.BENCH_SOURCES !== 'tsx';
}

/** The node options (before the script) of a bench process that runs payonce. */
export function payonceNodeArgs(): string[] {
  return ['--import', 'tsx'];
}

/**
 * The environment of a bench process: `env` with `TSX_TSCONFIG_PATH` set to the repository's tsconfig.json under
 * `BENCH_SOURCES=tsx` (payonce from src/), and without it otherwise (payonce from dist/).
 */
export function payonceNodeEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...env };
  if (usesCompiledPayonce(env)) delete out.TSX_TSCONFIG_PATH;
  else out.TSX_TSCONFIG_PATH = join(REPO_ROOT, 'tsconfig.json');
  return out;
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
 * The src/ files (relative to `root`, a package folder) whose compiled copy in dist/ is missing or older than the
 * source; empty when dist/ is current.
 */
export function staleCompiledFiles(root: string): string[] {
  return typeScriptFiles(root, 'src').filter((source) => {
    const compiled = join(root, 'dist', `${relative('src', source).slice(0, -3)}.js`);
    try {
      return statSync(compiled).mtimeMs < statSync(join(root, source)).mtimeMs;
    } catch {
      return true;
    }
  });
}

/**
 * Every stale source of the packages the bench loads (`packages/<name>/src/…`). The bench refuses to run with a stale
 * dist/: it would measure other code than the tree's.
 */
export function staleMeasuredFiles(): string[] {
  return MEASURED_PACKAGES.flatMap((name) =>
    staleCompiledFiles(join(REPO_ROOT, 'packages', name)).map((file) => join('packages', name, file)),
  );
}
