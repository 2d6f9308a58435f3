/**
 * Runs one side of a pair (`lib/side-protocol.ts`) in a fresh process: `node --expose-gc --import tsx <script>
 * <args…>` (`side-node-args.ts`) from the bench's folder, the namespace as JSON in `BENCH_NS`, and reads the `SideResult` from
 * the last line of its stdout. The process gets a process group of its own, so a side that hangs is killed with
 * whatever it started (an HTTP side's server).
 */
import { spawn } from 'node:child_process';
import type { NamespaceInfo } from './namespaces.js';
import type { SideRun } from './pair-verdict.js';
import { BENCH_DIR, payonceNodeArgs, payonceNodeEnv } from './side-node-args.js';
import type { SideResult, SideSpec } from './side-protocol.js';

/** A side that has not exited after this long is killed and its pair reported failed. */
export const SIDE_TIMEOUT_MS = 180_000;

/** Lines of a failed side's stderr kept for the report. */
const STDERR_TAIL_LINES = 6;

/**
 * The `SideResult` of a side's stdout (its last non-empty line), or why there is none.
 * @returns a result, or a string saying what is wrong with the output.
 */
export function parseSideOutput(stdout: string): SideResult | string {
  const last = stdout.trimEnd().split('\n').at(-1)?.trim() ?? '';
  if (last === '') return 'no result line on stdout';
  let parsed: unknown;
  try {
    parsed = JSON.parse(last);
  } catch {
    return `last stdout line is not JSON: ${last.slice(0, 120)}`;
  }
  const r = parsed as Partial<SideResult>;
  const numbers = ['opsPerSec', 'p50Ms', 'p99Ms', 'operations', 'errors'] as const;
  const missing = numbers.filter((name) => typeof r[name] !== 'number');
  if (typeof parsed !== 'object' || parsed === null || missing.length > 0) {
    return `result line lacks ${missing.join(', ') || 'an object'}`;
  }
  return { ...r, firstError: r.firstError ?? null } as SideResult;
}

const tail = (text: string): string => text.trimEnd().split('\n').slice(-STDERR_TAIL_LINES).join(' ⏎ ').slice(-600);

/** Options of `runSide`. */
export interface RunSideOptions {
  /** Passed as `BENCH_NS` (omitted when null). */
  readonly ns: NamespaceInfo | null;
  readonly timeoutMs?: number;
  /** Called with each stderr line of the side when set (BENCH_VERBOSE=1). */
  readonly echo?: ((line: string) => void) | undefined;
}

/** Runs `side` once; never throws: a failure is in `SideRun.failure`. */
export function runSide(side: SideSpec, options: RunSideOptions): Promise<SideRun> {
  const started = performance.now();
  const env: NodeJS.ProcessEnv = payonceNodeEnv(process.env);
  delete env.BENCH_NS;
  if (options.ns !== null) env.BENCH_NS = JSON.stringify(options.ns);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--expose-gc', ...payonceNodeArgs(), side.script, ...side.args], {
      cwd: BENCH_DIR,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout = (stdout + chunk).slice(-64_000);
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-16_000);
      if (options.echo) for (const line of chunk.trimEnd().split('\n')) options.echo(`    | ${line}`);
    });
    const killGroup = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, options.timeoutMs ?? SIDE_TIMEOUT_MS);
    const finish = (failure: string | null, result: SideResult | null) => {
      clearTimeout(timer);
      resolve({ sideId: side.id, result, failure, wallMs: performance.now() - started });
    };
    child.on('error', (error) => finish(`could not start: ${error.message}`, null));
    child.on('close', (code, signal) => {
      // Whatever the side left running in its group (an HTTP server child) goes with it.
      killGroup();
      const parsed = parseSideOutput(stdout);
      const result = typeof parsed === 'string' ? null : parsed;
      if (timedOut)
        return finish(`timed out after ${options.timeoutMs ?? SIDE_TIMEOUT_MS} ms; ${tail(stderr)}`, result);
      if (code !== 0) return finish(`exit ${code ?? signal}: ${tail(stderr) || 'no stderr'}`, result);
      if (typeof parsed === 'string') return finish(`${parsed}; ${tail(stderr)}`, null);
      finish(null, result);
    });
  });
}
