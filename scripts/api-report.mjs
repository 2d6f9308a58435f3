// The library's public API report: every public entry of packages/payonce (each `exports` subpath except
// `./internal/*` and `./package.json`) with its exported names and their signatures, as API Extractor prints them,
// one file per entry under packages/payonce/api/. The declarations are emitted afresh from src (the same
// tsconfig.build.json as the published dist/), so the report is the surface a user gets.
//
//   node scripts/api-report.mjs           check: exit 1 when any entry's surface differs from its checked-in report
//   node scripts/api-report.mjs --update  rewrite the reports (then review the diff and commit it)
//
// `npm test` runs the check (`npm run api:check`); `npm run api:update` rewrites.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CompilerState, Extractor, ExtractorConfig } from '@microsoft/api-extractor';

const update = process.argv.includes('--update');
const root = resolve(import.meta.dirname, '..');
const library = join(root, 'packages/payonce');
const reportFolder = join(library, 'api');
// Inside the library (gitignored) so the emitted declarations resolve kysely, fastify, … as dist/ does; not under
// a node_modules folder, which API Extractor would take for an external package and leave unexpanded.
const work = join(library, '.api-work');
const declarations = join(work, 'dts');

/** `./webhooks/express` → { name: 'payonce/webhooks/express', file: 'payonce-webhooks-express', dts: '…/webhooks/express-webhooks.d.ts' } */
function entries() {
  const manifest = JSON.parse(readFileSync(join(library, 'package.json'), 'utf8'));
  return Object.entries(manifest.exports)
    .filter(([subpath, target]) => typeof target === 'object' && target !== null && !subpath.includes('*'))
    .map(([subpath, target]) => {
      const name = manifest.name + subpath.slice(1);
      return {
        name,
        file: name.replaceAll('/', '-'),
        dts: join(declarations, target.types.replace(/^\.\/dist\//, '')),
      };
    });
}

rmSync(work, { recursive: true, force: true });
execFileSync(
  process.execPath,
  [
    join(root, 'node_modules/typescript/bin/tsc'),
    '-p',
    join(library, 'tsconfig.build.json'),
    '--emitDeclarationOnly',
    '--declarationMap',
    'false',
    '--sourceMap',
    'false',
    '--outDir',
    declarations,
  ],
  { stdio: 'inherit' },
);

const list = entries();
const silent = { logLevel: 'none', addToApiReportFile: false };
/** One API Extractor configuration for `entry`; every message that concerns the surface goes into the report. */
function configOf(entry) {
  return ExtractorConfig.prepare({
    configObjectFullPath: join(library, 'api-extractor.json'), // virtual: nothing is read from it
    packageJsonFullPath: join(library, 'package.json'),
    configObject: {
      projectFolder: library,
      mainEntryPointFilePath: entry.dts,
      compiler: {
        overrideTsconfig: {
          compilerOptions: {
            module: 'NodeNext',
            moduleResolution: 'NodeNext',
            target: 'ES2022',
            strict: true,
            skipLibCheck: true,
            types: ['node'],
          },
          files: list.map((e) => e.dts),
        },
      },
      apiReport: {
        enabled: true,
        reportFileName: entry.file,
        reportFolder,
        reportTempFolder: join(work, 'reports'),
      },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: {
        compilerMessageReporting: { default: { logLevel: 'error' } },
        extractorMessageReporting: {
          default: { logLevel: 'none', addToApiReportFile: true },
          'ae-missing-release-tag': silent,
          // A member without a docstring is marked `(undocumented)` in place; the list at the end would add .d.ts
          // line numbers, which move with every unrelated edit.
          'ae-undocumented': silent,
          // A type from another entry (`Store` in `payonce/http/express`) is named, not repeated; that is by design.
          'ae-forgotten-export': silent,
        },
        tsdocMessageReporting: { default: silent },
      },
    },
  });
}

if (update) mkdirSync(reportFolder, { recursive: true });
const configs = list.map((entry) => ({ entry, config: configOf(entry) }));
const compilerState = CompilerState.create(configs[0].config, { additionalEntryPoints: list.map((e) => e.dts) });
const changed = [];
let errors = 0;
for (const { entry, config } of configs) {
  const result = Extractor.invoke(config, {
    localBuild: update,
    compilerState,
    messageCallback(message) {
      // "Analysis will use the bundled TypeScript version …" and "report created/copied", once per entry.
      if (message.category === 'console' && message.messageId !== 'console-api-report-diff') message.handled = true;
    },
  });
  errors += result.errorCount;
  if (result.apiReportChanged) changed.push(entry.name);
}
const expected = new Set(list.map((e) => `${e.file}.api.md`));
const stale = existsSync(reportFolder) ? readdirSync(reportFolder).filter((f) => !expected.has(f)) : [];
if (update) for (const file of stale) rmSync(join(reportFolder, file));

if (errors > 0) {
  console.error(`api-report: API Extractor reported ${errors} error(s) above.`);
  process.exit(1);
}
if (update) {
  console.log(
    `api-report: ${list.length} entries written to packages/payonce/api/` +
      (changed.length > 0 ? `; changed: ${changed.join(', ')}` : '; no change') +
      (stale.length > 0 ? `; removed: ${stale.join(', ')}` : '') +
      '. Review the diff before committing.',
  );
} else if (changed.length > 0 || stale.length > 0) {
  for (const entry of list.filter((e) => changed.includes(e.name))) {
    const file = `${entry.file}.api.md`;
    try {
      execFileSync(
        'git',
        ['--no-pager', 'diff', '--no-index', '--', join(reportFolder, file), join(work, 'reports', file)],
        {
          stdio: 'inherit',
        },
      );
    } catch {
      // git diff exits 1 when the files differ; the diff is already printed.
    }
  }
  console.error(
    `api-report: the public API of ${[...changed, ...stale].join(', ')} differs from packages/payonce/api/. ` +
      'Run `npm run api:update` and review the diff (every changed line is a change users see), then commit it.',
  );
  process.exit(1);
} else {
  console.log(`api-report: ${list.length} entries match packages/payonce/api/.`);
}
