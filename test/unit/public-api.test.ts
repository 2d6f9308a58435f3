import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';

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
    .filter(
      (entry): entry is [string, { types: string; import: string }] =>
        typeof entry[1] === 'object' && entry[1] !== null,
    )
    .filter(([subpath]) => !subpath.endsWith('/*'))
    .map(([subpath, target]) => ({
      subpath: `${pkg.name}${subpath.slice(1)}`,
      source: `${packages}${dir}/${target.import.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts')}`,
    }));
});

interface Exported {
  readonly subpath: string;
  readonly name: string;
  /** The declaration the export stands for (aliases followed). */
  readonly symbol: ts.Symbol;
}

let built: { checker: ts.TypeChecker; exports: Exported[] } | undefined;

/** One program over every entry point, built once for the tests below. */
function program(): { checker: ts.TypeChecker; exports: Exported[] } {
  if (built) return built;
  const created = ts.createProgram(
    entryPoints.map((e) => e.source),
    { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, strict: true },
  );
  const checker = created.getTypeChecker();
  const exports = entryPoints.flatMap(({ subpath, source }) => {
    const file = created.getSourceFile(source);
    const moduleSymbol = file && checker.getSymbolAtLocation(file);
    if (!moduleSymbol) throw new Error(`cannot read ${source}`);
    return checker.getExportsOfModule(moduleSymbol).map((exported) => ({
      subpath,
      name: exported.getName(),
      symbol: exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported,
    }));
  });
  built = { checker, exports };
  return built;
}

describe('public API', () => {
  // Type-checking every entry of every package takes ~15 s alone and several times that on a loaded 2-core machine;
  // it is done once here, outside the per-test timeout.
  beforeAll(() => {
    program();
  }, 180_000);

  it('maps every subpath export to a source entry point', () => {
    expect(entryPoints.length).toBeGreaterThanOrEqual(6);
    for (const { subpath, source } of entryPoints) expect(existsSync(source), `${subpath} → ${source}`).toBe(true);
  });

  it('documents every export of every entry point (what, shapes, units, errors, source of the rule)', () => {
    const { checker, exports } = program();
    const undocumented = exports
      .filter(({ symbol }) => !symbol.getDocumentationComment(checker).some((part) => part.text.trim().length > 0))
      .map(({ subpath, name }) => `${subpath}: ${name}`);
    expect(undocumented).toEqual([]);
  });

  it('gives each exported name one meaning across every entry point of every package', () => {
    const declaredAt = new Map<string, Map<string, string[]>>();
    for (const { subpath, name, symbol } of program().exports) {
      const declaration = symbol.declarations?.[0];
      const where = declaration ? declaration.getSourceFile().fileName.slice(packages.length) : subpath;
      const places = declaredAt.get(name) ?? new Map<string, string[]>();
      places.set(where, [...(places.get(where) ?? []), subpath]);
      declaredAt.set(name, places);
    }
    const twoMeanings = [...declaredAt]
      .filter(([, places]) => places.size > 1)
      .map(
        ([name, places]) =>
          `${name}: ${[...places].map(([where, subs]) => `${subs.join(', ')} (${where})`).join(' vs ')}`,
      );
    expect(twoMeanings).toEqual([]);
  });
});
