import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const packages = fileURLToPath(new URL('../../packages/', import.meta.url));

/**
 * `./dist/stores/sqlite/index.js` → `packages/payonce/src/stores/sqlite/index.ts`, for every subpath export of every
 * workspace package; `./internal/*` (the tooling's way into the library, not public API) is left out.
 */
const entryPoints = ['payonce', 'sandbox', 'storm', 'service', 'cli'].flatMap((dir) => {
  const pkg = JSON.parse(readFileSync(`${packages}${dir}/package.json`, 'utf8')) as {
    name: string;
    exports: Record<string, string | { types: string; import: string }>;
  };
  return Object.entries(pkg.exports)
    .filter((entry): entry is [string, { types: string; import: string }] => typeof entry[1] === 'object')
    .filter(([subpath]) => !subpath.endsWith('/*'))
    .map(([subpath, target]) => ({
      subpath: `${pkg.name}${subpath.slice(1)}`,
      source: `${packages}${dir}/${target.import.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts')}`,
    }));
});

describe('public API', () => {
  it('maps every subpath export to a source entry point', () => {
    expect(entryPoints.length).toBeGreaterThanOrEqual(6);
    for (const { subpath, source } of entryPoints) expect(existsSync(source), `${subpath} → ${source}`).toBe(true);
  });

  it('documents every export of every entry point (what, shapes, units, errors, source of the rule)', () => {
    const program = ts.createProgram(
      entryPoints.map((e) => e.source),
      { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, strict: true },
    );
    const checker = program.getTypeChecker();
    const undocumented: string[] = [];
    for (const { subpath, source } of entryPoints) {
      const file = program.getSourceFile(source);
      const moduleSymbol = file && checker.getSymbolAtLocation(file);
      if (!moduleSymbol) throw new Error(`cannot read ${source}`);
      for (const exported of checker.getExportsOfModule(moduleSymbol)) {
        const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
        const documented = symbol.getDocumentationComment(checker).some((part) => part.text.trim().length > 0);
        if (!documented) undocumented.push(`${subpath}: ${exported.getName()}`);
      }
    }
    expect(undocumented).toEqual([]);
  }, 120_000); // a whole TypeScript program of every entry point: tens of seconds on a loaded 2-core machine
});
