// Compiles one TypeScript child script for test/support/ts-child.ts (run as `node ts-child-compile.mjs <script>
// <outDir>`; prints the bundle's path). A separate process because the import.meta.url plugin below needs esbuild's
// asynchronous build while tsChildArgs() is synchronous. Every local module keeps its own import.meta.url (the
// file URL of its source), so helpers that find fixtures or generated clients next to themselves still do.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [script, outDir] = process.argv.slice(2);
const esbuild = createRequire(createRequire(import.meta.url).resolve('tsx/package.json'))('esbuild');

/** Replaces `import.meta.url` in every bundled source file with that file's own URL. */
const ownImportMetaUrl = {
  name: 'own-import-meta-url',
  setup(build) {
    build.onLoad({ filter: /\.[cm]?[jt]s$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return undefined;
      const contents = text.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href));
      return { contents, loader: /\.[cm]?ts$/.test(args.path) ? 'ts' : 'js' };
    });
  },
};

const name = path.relative(process.cwd(), script).replace(/[/\\.]/g, '_');
const result = await esbuild.build({
  entryPoints: [script],
  outfile: path.join(outDir, `${name}.mjs`),
  write: false,
  bundle: true,
  packages: 'external',
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: 'inline',
  logLevel: 'silent',
  plugins: [ownImportMetaUrl],
});
const contents = result.outputFiles[0].contents;
const hash = createHash('sha256').update(contents).digest('hex').slice(0, 16);
const outfile = path.join(outDir, `${name}-${hash}.mjs`);
if (!existsSync(outfile)) {
  mkdirSync(outDir, { recursive: true });
  const partial = `${outfile}.${process.pid}-${randomBytes(3).toString('hex')}`;
  writeFileSync(partial, contents);
  renameSync(partial, outfile);
}
// Bundles of this script's older versions, untouched for a day, are no test's any more.
const dayAgoMs = Date.now() - 86_400_000;
for (const other of readdirSync(outDir)) {
  const file = path.join(outDir, other);
  if (other.startsWith(`${name}-`) && file !== outfile && statSync(file).mtimeMs < dayAgoMs)
    rmSync(file, { force: true });
}
process.stdout.write(outfile);
