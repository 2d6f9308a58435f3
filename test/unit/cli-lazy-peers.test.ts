import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// @payonce/cli declares @payonce/sandbox, @payonce/service and @payonce/storm as OPTIONAL peers: a user with only
// the sandbox installed must still run `payonce --help` and `payonce sandbox …`. So nothing that `run-cli.ts` loads
// statically may import them for a value; each command imports them with `importWithPeers` when it runs. A static
// import of one crashed every command with ERR_MODULE_NOT_FOUND before commander even parsed the arguments.

const CLI_SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../packages/cli/src');
const OPTIONAL_TOOLING = ['@payonce/sandbox', '@payonce/service', '@payonce/storm'];

/** The specifiers of the static imports and re-exports of `file` that stay in its JavaScript. */
function staticImportsOf(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
  const found: string[] = [];
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement) && !statement.importClause?.isTypeOnly) {
      // With verbatimModuleSyntax, `import { type X } from 'p'` still loads 'p': only `import type` is erased.
      found.push((statement.moduleSpecifier as ts.StringLiteral).text);
    }
    if (ts.isExportDeclaration(statement) && !statement.isTypeOnly && statement.moduleSpecifier !== undefined) {
      found.push((statement.moduleSpecifier as ts.StringLiteral).text);
    }
  }
  return found;
}

/** Every cli source file `entry` loads before any command runs, with the tooling packages each imports statically. */
function eagerTooling(entry: string): Map<string, string[]> {
  const seen = new Map<string, string[]>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    const imports = staticImportsOf(file);
    seen.set(
      file,
      imports.filter((specifier) =>
        OPTIONAL_TOOLING.some((name) => specifier === name || specifier.startsWith(`${name}/`)),
      ),
    );
    for (const specifier of imports) {
      if (specifier.startsWith('.')) visit(resolve(dirname(file), specifier).replace(/\.js$/, '.ts'));
    }
  };
  visit(entry);
  return seen;
}

describe('@payonce/cli loads its optional tooling packages lazily', () => {
  const graph = eagerTooling(resolve(CLI_SRC, 'run-cli.ts'));

  it('follows the static imports of every command (the check is not vacuous)', () => {
    for (const command of ['storm', 'replay', 'jobs', 'inspect', 'receipts', 'worker', 'demo', 'sandbox', 'serve']) {
      expect([...graph.keys()], command).toContain(resolve(CLI_SRC, `commands/${command}.ts`));
    }
    const sample = staticImportsOf(resolve(CLI_SRC, 'commands/serve.ts'));
    expect(sample).toContain('commander');
    expect(sample).not.toContain('@payonce/service/internal/service-options.js'); // `import type`: erased
  });

  it('imports no value of @payonce/sandbox, @payonce/service or @payonce/storm before a command runs', () => {
    const eager = [...graph].flatMap(([file, tooling]) =>
      tooling.map((specifier) => `${file.slice(CLI_SRC.length + 1)} → ${specifier}`),
    );
    expect(eager).toEqual([]);
  });
});
