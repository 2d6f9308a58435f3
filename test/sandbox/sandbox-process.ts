import { type ChildProcess, spawn } from 'node:child_process';
import { payonceBin } from '../../packages/cli/src/demo/service-launch.js';

/** A `payonce sandbox` child process (the built `bin/payonce.js`). */
export interface SandboxProcess {
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  /** Everything it printed on stdout so far. */
  output(): string;
  /** SIGTERM, then SIGKILL after 5 s; resolves when it exited. */
  stop(): Promise<void>;
}

/**
 * Starts `payonce sandbox --port 0 ...args` and resolves once it printed its URL (rejects after `timeoutMs` or when
 * it exits first, with its output). Needs `npm run build` (tests run after it).
 */
export function startSandboxProcess(args: readonly string[], timeoutMs = 20_000): Promise<SandboxProcess> {
  const child: ChildProcess = spawn(process.execPath, [payonceBin(), 'sandbox', '--port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`payonce sandbox did not start in ${timeoutMs} ms:\n${stdout}\n${stderr}`));
    }, timeoutMs);
    const onExit = (code: number | null) => {
      clearTimeout(timer);
      reject(new Error(`payonce sandbox exited (${code}) before listening:\n${stdout}\n${stderr}`));
    };
    child.once('exit', onExit);
    const onData = () => {
      const match = /listening on (http:\/\/127\.0\.0\.1:(\d+))/.exec(stdout);
      if (match === null) return;
      child.stdout?.off('data', onData);
      clearTimeout(timer);
      child.off('exit', onExit);
      resolve({ url: match[1]!, port: Number(match[2]), pid: child.pid!, output: () => stdout, stop });
    };
    child.stdout?.on('data', onData);
  });
}
