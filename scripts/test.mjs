// `npm test` after `pretest` (build, prisma generate): the static checks (type check, lint, API report) and the
// test suites, side by side. The suites spend most of their time waiting on servers, child processes and leases, so
// on a 2-core machine the checks' compile time fits beside them instead of before them (together they took over
// 15 minutes one after the other, 2026-12-07). The checks' output is held and printed when they end, so it does not
// interleave with the test reporter; the exit status is non-zero when either part failed.
//
//   npm test                 checks and suites
//   npm test -- <args>       the same, with <args> passed to `vitest run` (a file filter, `--reporter`, …)
import { spawn } from 'node:child_process';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const extra = process.argv.slice(2).filter((arg, at) => !(at === 0 && arg === '--'));

/** Runs `command args`, resolving with its exit status and, when `held`, its output (stdout and stderr merged). */
function run(command, args, held) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: held ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
    const chunks = [];
    if (held) {
      child.stdout.on('data', (chunk) => chunks.push(chunk));
      child.stderr.on('data', (chunk) => chunks.push(chunk));
    }
    child.on('error', (error) => resolve({ code: 1, output: `${command}: ${error.message}\n` }));
    child.on('close', (code, signal) =>
      resolve({ code: code ?? (signal ? 1 : 0), output: Buffer.concat(chunks).toString() }),
    );
  });
}

/** The static checks, one after the other (each is a compiler run; two at once would only fight for the cores). */
async function checks() {
  for (const script of ['typecheck', 'lint', 'api:check']) {
    const { code, output } = await run(npm, ['run', '--silent', script], true);
    if (code !== 0) return { code, output: `npm run ${script} failed:\n${output}` };
  }
  return { code: 0, output: 'static checks passed: typecheck, lint, api:check\n' };
}

const [statics, suites] = await Promise.all([
  checks(),
  run(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', ...extra], false),
]);
process.stdout.write(statics.output);
if (statics.code !== 0 || suites.code !== 0) {
  console.error(
    `npm test failed: ${[statics.code !== 0 && 'static checks', suites.code !== 0 && 'test suites'].filter(Boolean).join(' and ')}`,
  );
  process.exit(1);
}
