/**
 * Starts `server-child.ts` in a fresh Node process (forked, IPC) and talks to it: where it listens, zeroing and
 * reading its `pg` statement probe, stopping it. Its CPU profile covers a chosen window (inspector).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { payonceNodeArgs } from '../lib/side-node-args.js';
import type { ProbeSnapshot } from './pg-probe.js';

/** A running server child. */
export interface ServerProcess {
  readonly url: string;
  readonly pid: number;
  /** Zeroes the child's statement probe (after the warm-up). */
  resetProbe(): Promise<void>;
  /** The child's statement probe since the last reset. */
  probe(): Promise<ProbeSnapshot>;
  /** Starts a CPU profile of the child (inspector), to be written by `stopProfile`. */
  startProfile(): Promise<void>;
  /** Stops the CPU profile and writes it to `path` (`.cpuprofile`). */
  stopProfile(path: string): Promise<void>;
  /** Asks the child to close and waits for its exit (SIGKILL after 10 s). */
  stop(): Promise<void>;
}

/** Options of {@link startServerProcess}. */
export interface ServerProcessOptions {
  /** Arguments of `server-child.ts` (mode first). */
  readonly args: readonly string[];
}

const SCRIPT = new URL('./server-child.ts', import.meta.url);

/** Forks the server child and resolves once it listens. @throws when it exits or fails to start within 60 s. */
export function startServerProcess(options: ServerProcessOptions): Promise<ServerProcess> {
  const execArgv = payonceNodeArgs();
  // Every server (the reference service and the hand-written routes) runs as deployed: `NODE_ENV=production`.
  const child: ChildProcess = fork(SCRIPT, [...options.args], {
    execArgv,
    env: { ...process.env, NODE_ENV: 'production' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let nextId = 0;
  const pending = new Map<number, (value: unknown) => void>();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ask = (type: string, extra: Record<string, unknown> = {}): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, resolve);
      child.send({ type, id, ...extra }, (error) => error && reject(error));
    });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('server child did not start within 60 s'));
    }, 60_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server child exited with ${code} before it listened`));
    });
    child.on('message', (message: { type: string; id?: number; url?: string; value?: unknown }) => {
      if (message.type === 'ack' && message.id !== undefined) {
        pending.get(message.id)?.(message.value);
        pending.delete(message.id);
        return;
      }
      if (message.type !== 'ready' || message.url === undefined) return;
      clearTimeout(timer);
      resolve({
        url: message.url,
        pid: child.pid ?? -1,
        resetProbe: async () => {
          await ask('reset');
        },
        probe: async () => (await ask('stats')) as ProbeSnapshot,
        startProfile: async () => {
          await ask('profile-start');
        },
        stopProfile: async (path: string) => {
          await ask('profile-stop', { path });
        },
        async stop() {
          if (child.exitCode !== null) return;
          const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
          child.send({ type: 'stop' });
          await exited;
          clearTimeout(kill);
        },
      });
    });
  });
}
