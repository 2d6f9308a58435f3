import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The layers of `src/`, highest first (docs/design.md §2 "Layers"). A folder may import its own files and the
 * folders of LOWER layers only; folders of one layer do not import each other. `src/index.ts` (the package's
 * main entry) may import anything and nothing imports it. A new folder must be placed here.
 */
const LAYERS: readonly (readonly string[])[] = [
  ['cli'], // `payonce` commands: wire the service, the storm, the sandbox and the stores together
  ['service', 'storm'], // the reference service; the conformance runner (reaches a service over HTTP only)
  ['sandbox', 'observe'], // the fake provider (a PaymentProvider + Stripe-like API); logs and metrics of the intake
  ['webhooks'], // the webhook intake: verify, extract, claim, handle, acknowledge, journal
  ['http', 'payments', 'relay'], // Idempotency-Key adapters; orders, attempts, provider events, reconciliation; outbox relay to brokers
  ['outbox'], // transactional outbox, workers, effect ledger
  ['stores'], // Store implementations (memory, SQL, Redis), migrations, database URLs
  ['problem'], // RFC 9457 problem details, owning no layer's codes
  ['core'], // receipts, claims, the guard, the Store port; knows nothing of HTTP, SQL or payments
];

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Relative imports of one file (static, `export … from`, `import type`, dynamic), as absolute `.ts` paths. */
function importsOf(file: string): string[] {
  const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return info.importedFiles
    .map((ref) => ref.fileName)
    .filter((name) => name.startsWith('.'))
    .map((name) => resolve(dirname(file), name).replace(/\.js$/, '.ts'));
}

/** `cli`, `core`, … of a file; `''` for the entry files directly in `src/`. */
function folderOf(file: string): string {
  const parts = relative(SRC, file).split('/');
  return parts.length === 1 ? '' : (parts[0] as string);
}

const files = sourceFiles(SRC);
const graph = new Map(files.map((file) => [file, importsOf(file)]));
const layerOf = new Map(LAYERS.flatMap((folders, index) => folders.map((folder) => [folder, index] as const)));
const rel = (file: string) => relative(SRC, file);

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

describe('imports of src/ flow one way', () => {
  it('reads the imports of every source file (the test is not vacuous)', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(graph.get(join(SRC, 'core/idempotency-guard.ts'))).toContain(join(SRC, 'core/store.ts'));
  });

  it('places every folder of src/ in a layer', () => {
    const folders = new Set(files.map(folderOf).filter((folder) => folder !== ''));
    expect([...folders].filter((folder) => !layerOf.has(folder))).toEqual([]);
  });

  it('never imports a higher layer or another folder of the same layer', () => {
    const violations: string[] = [];
    for (const [file, targets] of graph) {
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

  it('resolves every relative import to a file of src/', () => {
    const missing = [...graph].flatMap(([file, targets]) =>
      targets.filter((target) => !graph.has(target)).map((target) => `${rel(file)} → ${rel(target)}`),
    );
    expect(missing).toEqual([]);
  });
});
