import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The packages of the workspace, highest first (docs/design.md §2 "Layers"): a package may import (by its npm name,
 * `payonce/…` or `@payonce/…`) only packages of LOWER rows, and never reaches into another package by a relative
 * path. The library `payonce` is the bottom row; the tooling sits on it.
 */
const PACKAGE_LAYERS: readonly (readonly string[])[] = [
  ['cli'], // `@payonce/cli`: the commands, wiring the service, the storm, the sandbox and the stores together
  ['service', 'storm'], // the reference service with its console; the conformance runner (reaches a service over HTTP)
  ['sandbox'], // the fake provider (a PaymentProvider + Stripe-like API)
  ['payonce'], // the library
];

/**
 * The layers of the library's `src/` (packages/payonce/src), highest first. A folder may import its own files and
 * the folders of LOWER layers only; folders of one layer do not import each other. `src/index.ts` (the package's
 * main entry) may import anything and nothing imports it. A new folder must be placed here.
 */
const LAYERS: readonly (readonly string[])[] = [
  ['cli'], // the library's `payonce` executable: `migrate`, and the hand-over to @payonce/cli
  ['observe', 'nestjs'], // logs and metrics of the guard and the intake; the NestJS module, interceptor, webhook controller
  ['providers'], // merchant-side protocol engines (payonce/payme, payonce/click) on payments, the outbox and the SQL stores
  ['webhooks'], // the webhook intake: verify, extract, claim, handle, acknowledge, journal
  ['http', 'payments', 'relay'], // Idempotency-Key adapters; orders, attempts, provider events, reconciliation; outbox relay to brokers
  ['outbox', 'tx'], // transactional outbox, workers, effect ledger; the one-commit mode in the application's own transaction (pg, Drizzle)
  ['stores'], // Store implementations (memory, SQL, Redis), migrations, database URLs
  ['problem'], // RFC 9457 problem details, owning no layer's codes
  ['core'], // receipts, claims, the guard, the Store port; knows nothing of HTTP, SQL or payments
  ['otel'], // the OpenTelemetry seam: the optional API resolved once, spans, W3C trace context, instruments
];

const PACKAGES = resolve(dirname(fileURLToPath(import.meta.url)), '../../packages');
const SRC = join(PACKAGES, 'payonce', 'src');
const NPM_NAMES: Readonly<Record<string, string>> = {
  payonce: 'payonce',
  '@payonce/sandbox': 'sandbox',
  '@payonce/storm': 'storm',
  '@payonce/service': 'service',
  '@payonce/cli': 'cli',
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The import specifiers of one file (static, `export … from`, `import type`, dynamic). */
function specifiersOf(file: string): string[] {
  return ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles.map((ref) => ref.fileName);
}

/** Relative imports of one file, as absolute `.ts` paths. */
function importsOf(file: string): string[] {
  return specifiersOf(file)
    .filter((name) => name.startsWith('.'))
    .map((name) => resolve(dirname(file), name).replace(/\.js$/, '.ts'));
}

/** The workspace package (`payonce`, `sandbox`, …) a file belongs to. */
function packageOf(file: string): string {
  return relative(PACKAGES, file).split('/')[0] as string;
}

/** The workspace package an npm specifier names (`payonce/internal/x.js` → `payonce`), or undefined. */
function packageNamed(specifier: string): string | undefined {
  const name = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0];
  return NPM_NAMES[name as string];
}

/** `cli`, `core`, … of a library file; `''` for the entry files directly in `src/`. */
function folderOf(file: string): string {
  const parts = relative(SRC, file).split('/');
  return parts.length === 1 ? '' : (parts[0] as string);
}

const allFiles = Object.values(NPM_NAMES).flatMap((dir) => sourceFiles(join(PACKAGES, dir, 'src')));
const files = sourceFiles(SRC);
const graph = new Map(allFiles.map((file) => [file, importsOf(file)]));
const layerOf = new Map(LAYERS.flatMap((folders, index) => folders.map((folder) => [folder, index] as const)));
const packageLayerOf = new Map(PACKAGE_LAYERS.flatMap((names, index) => names.map((name) => [name, index] as const)));
const rel = (file: string) => relative(PACKAGES, file);

/** Strongly connected components of the file graph with more than one file (Tarjan). */
function cycles(): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!graph.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node) as number, low.get(target) as number));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node) as number, index.get(target) as number));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop() as string;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component);
    }
  };
  for (const file of files) if (!index.has(file)) visit(file);
  return found;
}

describe('imports of the packages flow one way', () => {
  it('reads the imports of every source file (the test is not vacuous)', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(allFiles.length).toBeGreaterThan(files.length + 100);
    expect(graph.get(join(SRC, 'core/idempotency-guard.ts'))).toContain(join(SRC, 'core/store.ts'));
  });

  it('places every package in a layer, and a package imports only lower packages, never by a relative path', () => {
    const violations: string[] = [];
    for (const file of allFiles) {
      const from = packageOf(file);
      for (const specifier of specifiersOf(file)) {
        if (specifier.startsWith('.')) {
          const target = resolve(dirname(file), specifier);
          if (packageOf(target) !== from) violations.push(`${rel(file)} reaches into ${rel(target)}`);
          continue;
        }
        const to = packageNamed(specifier);
        if (to === undefined || to === from) continue;
        if ((packageLayerOf.get(to) ?? -1) <= (packageLayerOf.get(from) ?? -1)) {
          violations.push(`${rel(file)} (${from}) imports ${specifier} (${to})`);
        }
      }
    }
    expect([...new Set(allFiles.map(packageOf))].filter((name) => !packageLayerOf.has(name))).toEqual([]);
    expect(violations).toEqual([]);
  });

  it('places every folder of src/ in a layer', () => {
    const folders = new Set(files.map(folderOf).filter((folder) => folder !== ''));
    expect([...folders].filter((folder) => !layerOf.has(folder))).toEqual([]);
  });

  it('never imports a higher layer or another folder of the same layer', () => {
    const violations: string[] = [];
    for (const file of files) {
      const targets = graph.get(file) ?? [];
      const from = folderOf(file);
      for (const target of targets) {
        const to = folderOf(target);
        if (to === '') {
          violations.push(`${rel(file)} imports the entry ${rel(target)}`);
          continue;
        }
        if (from === '' || from === to) continue;
        if ((layerOf.get(to) ?? -1) <= (layerOf.get(from) ?? -1)) {
          violations.push(`${rel(file)} (${from}) imports ${rel(target)} (${to})`);
        }
      }
    }
    expect(violations).toEqual([]);
  });

  it('has no import cycle that crosses folders', () => {
    const crossing = cycles()
      .filter((component) => new Set(component.map((file) => dirname(file))).size > 1)
      .map((component) => component.map(rel).sort());
    expect(crossing).toEqual([]);
  });

  it('has no import cycle at all inside the library, type-only imports included', () => {
    expect(cycles().map((component) => component.map(rel).sort())).toEqual([]);
  });

  it('resolves every relative import to a source file of its package', () => {
    const missing = [...graph].flatMap(([file, targets]) =>
      targets.filter((target) => !graph.has(target)).map((target) => `${rel(file)} → ${rel(target)}`),
    );
    expect(missing).toEqual([]);
  });
});
