import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Child processes written in TypeScript (the kill -9 and hammer children of the tests), started with plain `node`:
 * each script is compiled once per test process by esbuild — the transform tsx applies, with the script's local
 * imports (test helpers, packages/*\/src) bundled, each keeping its own `import.meta.url`, and every package left
 * as an import — instead of `--import tsx` at every start (about 0.5 s of CPU per child on the CI machine). The
 * bundle lands in `.test-children/` inside the repository (git-ignored; packages resolve from its node_modules, as
 * from the script), named by its content: test processes share one file per version of a script, written
 * atomically; a changed source gets a new file, and an older version untouched for a day is removed.
 */

const root = fileURLToPath(new URL('../../', import.meta.url));
const outDir = path.join(root, '.test-children');

/** esbuild, resolved from tsx (a devDependency that depends on it) so the tests do not rely on hoisting. */
export interface Esbuild {
  build(options: Record<string, unknown>): Promise<unknown>;
}
export const esbuild = createRequire(createRequire(import.meta.url).resolve('tsx/package.json'))('esbuild') as Esbuild;

/** Bundle path by script path, for this process. */
const compiled = new Map<string, string>();
const compiler = fileURLToPath(new URL('./ts-child-compile.mjs', import.meta.url));

/** Compiles `script` in a short `node` process (ts-child-compile.mjs); returns the bundle's path. */
function compile(script: string): string {
  return execFileSync(process.execPath, [compiler, script, outDir], { cwd: root, encoding: 'utf8' });
}

/**
 * The `node` arguments that run the TypeScript file `script` (an absolute path) with `args`, for
 * `spawn(process.execPath, tsChildArgs(script, args))`. The first call per script and process compiles it (a
 * fraction of a second, synchronously); later calls reuse the bundle. Stack traces point at the TypeScript lines
 * (`--enable-source-maps`).
 * @throws the esbuild error when the script does not compile (a missing import, a syntax error).
 */
export function tsChildArgs(script: string, args: readonly string[] = []): string[] {
  let bundle = compiled.get(script);
  if (bundle === undefined) {
    bundle = compile(script);
    compiled.set(script, bundle);
  }
  return ['--enable-source-maps', bundle, ...args];
}
