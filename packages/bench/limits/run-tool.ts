import { spawn } from 'node:child_process';

/** What a benchmark tool printed. */
export interface ToolOutput {
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `command` with `args` (no shell), killing it after `timeoutMs`. @throws {Error} when it exits non-zero, is
 * killed, or cannot start; the message carries the end of its stderr.
 */
export function runTool(
  command: string,
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<ToolOutput> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) return resolve({ stdout, stderr });
      const why = signal ? `killed by ${signal} after ${options.timeoutMs} ms` : `exited ${code}`;
      reject(new Error(`${command} ${why}: ${stderr.trim().split('\n').slice(-3).join(' | ')}`));
    });
  });
}

/** One row of the limits table. */
export interface LimitRow {
  /** What ran, e.g. `pgbench: payonce claim + completion (2 commits)`. */
  readonly what: string;
  readonly clients: number;
  /** Transactions (or commands) per second, all clients together. */
  readonly perSec: number;
  /** What one of `perSec` is, e.g. `deliveries`, `ops`. */
  readonly unit: string;
  /** Mean latency of one transaction (command), ms; null when the tool does not report it. */
  readonly latencyMs: number | null;
  /** p50/p99 where the tool reports them, else an empty string. */
  readonly detail: string;
}
