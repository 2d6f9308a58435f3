import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The library's `payonce` executable, as a user runs it: `migrate` itself, every other command through @payonce/cli. */
const PAYONCE_BIN = fileURLToPath(new URL('../../../packages/payonce/bin/payonce.js', import.meta.url));

/** What a `payonce` child process did. */
export interface PayonceRun {
  /** Exit status, `null` when it was killed (`signal` says by what). */
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly durationMs: number;
}

/** After a demo was killed (its exit hook did not run): kills the service children it reported, `(pid N` / `→ N)`. */
function killServiceChildren(stdout: string): void {
  for (const match of stdout.matchAll(/\(pid (\d+)|→ (\d+)\)/g)) {
    try {
      process.kill(Number(match[1] ?? match[2]), 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/**
 * Runs `node bin/payonce.js ...args` (the built `dist/`; run `npm run build` first) with `env` added to this
 * process's environment (a value `undefined` removes the variable), and resolves when it exits. Killed with
 * SIGKILL after `timeoutMs` (and so are the service children a demo reported), so a hanging command fails the
 * test instead of hanging it.
 */
export function runPayonce(
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>> = {},
  timeoutMs = 120_000,
): Promise<PayonceRun> {
  const startedAtMs = Date.now();
  const childEnv: Record<string, string | undefined> = { ...process.env, ...env };
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete childEnv[name];
  const child = spawn(process.execPath, [PAYONCE_BIN, ...args], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (signal === 'SIGKILL') killServiceChildren(stdout);
      resolve({ code, signal, stdout, stderr, durationMs: Date.now() - startedAtMs });
    });
  });
}
