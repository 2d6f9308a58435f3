// Builds every workspace package in dependency order (each one's dist/ from its src/), then the web console, and
// copies the user docs (docs/ and the README) into the library package, which ships them (they are not committed
// there: packages/payonce/docs and packages/payonce/README.md are build output, see .gitignore).
import { execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, rmSync } from 'node:fs';

const ORDER = ['payonce', 'sandbox', 'storm', 'service', 'cli'];
const run = (cmd, args) => execFileSync(cmd, args, { stdio: 'inherit' });

for (const name of ORDER) {
  rmSync(`packages/${name}/dist`, { recursive: true, force: true });
  run(process.execPath, ['node_modules/typescript/bin/tsc', '-p', `packages/${name}/tsconfig.build.json`]);
}
run(process.execPath, [
  'node_modules/vite/bin/vite.js',
  'build',
  '--config',
  'packages/service/web/console/vite.config.ts',
]);
rmSync('packages/payonce/docs', { recursive: true, force: true });
cpSync('docs', 'packages/payonce/docs', { recursive: true });
copyFileSync('README.md', 'packages/payonce/README.md');
