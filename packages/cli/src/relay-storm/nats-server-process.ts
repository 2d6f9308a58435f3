import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findFreePort } from '../demo/free-port.js';

/** A `nats-server -js` of the relay storm's own, on a free port of 127.0.0.1 with a temporary store directory. */
export interface OwnNatsServer {
  readonly url: string;
  /** SIGKILLs the server (by its pid) and starts it again on the same port and store directory. */
  restart(): Promise<void>;
  /** Stops it and deletes the store directory. */
  stop(): Promise<void>;
}

/** `nats-server` on PATH, else Debian's `/usr/sbin/nats-server`. */
function serverBinary(): string {
  for (const candidate of ['/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server']) {
    if (existsSync(candidate)) return candidate;
  }
  return 'nats-server';
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function waitForPort(port: number, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await portOpen(port))) {
    if (child.exitCode !== null) throw new Error(`nats-server exited with ${child.exitCode} before listening`);
    if (Date.now() > deadline) throw new Error(`nats-server did not listen on ${port} within 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.once('exit', () => resolve()));
}

/**
 * Starts `nats-server -js -a 127.0.0.1 -p <free port> -sd <temp dir>` for the broker-restart scenario.
 * @throws {Error} when the binary is missing or the server does not listen within 10 s.
 */
export async function startOwnNatsServer(): Promise<OwnNatsServer> {
  const port = await findFreePort();
  const storeDir = await mkdtemp(join(tmpdir(), 'payonce-relay-storm-nats-'));
  const args = ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', storeDir];
  const launch = async () => {
    const child = spawn(serverBinary(), args, { stdio: 'ignore' });
    child.once('error', () => {});
    await waitForPort(port, child);
    return child;
  };
  let child = await launch();
  return {
    url: `nats://127.0.0.1:${port}`,
    async restart() {
      child.kill('SIGKILL');
      await exited(child);
      child = await launch();
    },
    async stop() {
      child.kill('SIGTERM');
      await exited(child);
      await rm(storeDir, { recursive: true, force: true });
    },
  };
}
