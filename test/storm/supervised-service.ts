import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../packages/payonce/bin/payonce.js', import.meta.url));

/** A `payonce serve` child process restarted by a tiny supervisor after every exit it did not ask for. */
export interface SupervisedService {
  readonly url: string;
  /** Current child pid. */
  pid(): number;
  /** `{ from, to }` pids of every restart so far. */
  readonly restarts: readonly { readonly from: number; readonly to: number }[];
  /** Everything the children wrote (stdout and stderr), for failure messages. */
  output(): string;
  /** Stops supervising and ends the child (SIGTERM). */
  stop(): Promise<void>;
}

/** A free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/**
 * Starts `node bin/payonce.js serve` (needs `npm run build`) on a free port with `args` and `env`, and restarts it
 * on the same port whenever it exits unless `restart` is false or `stop()` was called. Resolves once the first
 * child printed its URL; throws with the child's output if it did not within 15 s.
 */
export async function superviseService(
  args: readonly string[],
  env: Record<string, string>,
  restart = true,
  /** A port chosen by the caller (e.g. one a sandbox's `--webhook-url` already names). @default a free port */
  fixedPort?: number,
): Promise<SupervisedService> {
  const port = fixedPort ?? (await freePort());
  const url = `http://127.0.0.1:${port}`;
  let output = '';
  let stopping = false;
  let child: ChildProcess;
  const restarts: { from: number; to: number }[] = [];

  const start = async (): Promise<ChildProcess> => {
    const next = spawn(process.execPath, [BIN, 'serve', '--port', String(port), ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    next.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`payonce serve did not start:\n${output}`)), 15_000);
      next.stdout?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes(`listening on ${url}`)) {
          clearTimeout(timer);
          resolve();
        }
      });
      next.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`payonce serve exited with ${code} before listening:\n${output}`));
      });
    });
    next.once('exit', () => {
      if (stopping || !restart) return;
      const from = next.pid ?? 0;
      output = '';
      start().then(
        (again) => {
          child = again;
          restarts.push({ from, to: again.pid ?? 0 });
        },
        (error: unknown) => {
          output += `\nrestart failed: ${String(error)}`;
        },
      );
    });
    return next;
  };

  child = await start();
  return {
    url,
    pid: () => child.pid ?? 0,
    restarts,
    output: () => output,
    async stop() {
      stopping = true;
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await once(child, 'exit');
      }
    },
  };
}
