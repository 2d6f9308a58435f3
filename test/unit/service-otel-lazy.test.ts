import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// docs/service.md "OpenTelemetry": a service started without --otel registers and loads nothing of the SDK. So no
// file `payonce serve`, `payonce worker` or `payonce console` loads statically may import an @opentelemetry
// package for a value: only service-tracing.ts imports the SDK modules, with import(), when otelUrl is set.

const SERVICE_SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../packages/service/src');

/** The specifiers of the static imports and re-exports of `file` that stay in its JavaScript. */
function staticImportsOf(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
  const found: string[] = [];
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement) && !statement.importClause?.isTypeOnly) {
      found.push((statement.moduleSpecifier as ts.StringLiteral).text);
    }
    if (ts.isExportDeclaration(statement) && !statement.isTypeOnly && statement.moduleSpecifier !== undefined) {
      found.push((statement.moduleSpecifier as ts.StringLiteral).text);
    }
  }
  return found;
}

/** Every service source file reachable from `entries` by static imports, with the packages each imports. */
function staticGraph(entries: readonly string[]): Map<string, string[]> {
  const seen = new Map<string, string[]>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    const imports = staticImportsOf(file);
    seen.set(file, imports);
    for (const specifier of imports) {
      if (specifier.startsWith('.')) visit(resolve(dirname(file), specifier).replace(/\.js$/, '.ts'));
    }
  };
  for (const entry of entries) visit(resolve(SERVICE_SRC, entry));
  return seen;
}

describe('@payonce/service loads the OpenTelemetry SDK only with --otel', () => {
  const graph = staticGraph(['create-service.ts', 'service-runtime.ts', 'admin/console-server.ts']);

  it('follows the static imports down to the tracing seam (the check is not vacuous)', () => {
    expect([...graph.keys()]).toContain(resolve(SERVICE_SRC, 'service-tracing.ts'));
    expect([...graph.keys()]).toContain(resolve(SERVICE_SRC, 'order-routes.ts'));
    expect(staticImportsOf(resolve(SERVICE_SRC, 'otel-sdk.ts'))).toContain('@opentelemetry/sdk-trace-base');
  });

  it('imports no value of an @opentelemetry package before otelUrl asks for it', () => {
    const eager = [...graph].flatMap(([file, imports]) =>
      imports
        .filter((specifier) => specifier.startsWith('@opentelemetry/'))
        .map((specifier) => `${file.slice(SERVICE_SRC.length + 1)} → ${specifier}`),
    );
    expect(eager).toEqual([]);
    expect([...graph.keys()]).not.toContain(resolve(SERVICE_SRC, 'otel-sdk.ts'));
    expect([...graph.keys()]).not.toContain(resolve(SERVICE_SRC, 'otel-http-spans.ts'));
  });
});
