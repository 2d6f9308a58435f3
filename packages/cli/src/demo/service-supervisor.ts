import { type ChildProcess, spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { OutputTail } from './output-tail.js';
import { ServiceStartFailed } from './service-start-failed.js';

/** One restart the supervisor made after an exit it did not ask for. */
export interface ServiceRestart {
  /** The pid that exited. */
  readonly fromPid: number;
  /** The pid of its healthy replacement. */
  readonly toPid: number;
  /** How the old process ended, e.g. `killed by SIGKILL` or `exited with code 1`. */
  readonly exit: string;
  /** When the replacement answered `/healthz`, epoch ms. */
  readonly atMs: number;
}

/** Options of {@link ServiceSupervisor.start}. */
export interface ServiceSupervisorOptions {
  /** The script `process.execPath` runs (absolute path), e.g. the package's `bin/payonce.js`. */
  readonly script: string;
  /** Arguments after the script, e.g. `['serve', '--port', '4321']`. Keep secrets in `env`, not here. */
  readonly args: readonly string[];
  /** The child's whole environment. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** `GET` URL that answers `200 { pid }` with the child's own pid once it is ready (the service's `/healthz`). */
  readonly healthUrl: string;
  /** How long one start may take until healthy, ms. @default 30_000 */
  readonly startTimeoutMs?: number;
  /** Failed restarts in a row after which the supervisor gives up (`failure` is set). @default 3 */
  readonly maxFailedRestarts?: number;
  /** How long `stop()` waits after SIGTERM before SIGKILL, ms. @default 5_000 */
  readonly stopGraceMs?: number;
  /** Called when a replacement is healthy. */
  readonly onRestart?: (restart: ServiceRestart) => void;
  /** Called once when restarting failed `maxFailedRestarts` times in a row. */
  readonly onGiveUp?: (failure: ServiceStartFailed) => void;
}

function describeExit(code: number | null, signal: NodeJS.Signals | null): string {
  return signal !== null ? `killed by ${signal}` : `exited with code ${code ?? 'unknown'}`;
}

function alive(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

/**
 * Runs one service process and keeps it running: a child started with `process.execPath script …args` in its own
 * process group (so a terminal's Ctrl-C reaches only the parent, which stops it), considered started once
 * `healthUrl` answers with the child's pid, and started again — same arguments, so the same port and database —
 * after any exit that `stop()` did not ask for (a SIGKILL by pid, a crash). This is what brings the service back
 * after storm scenario 12 (docs/design.md §9) kills it. The child's stdout and stderr are captured (`output()`), never
 * printed. A child left over when the parent exits is killed with SIGKILL.
 */
export class ServiceSupervisor {
  readonly #options: ServiceSupervisorOptions;
  readonly #tail = new OutputTail();
  readonly #restarts: ServiceRestart[] = [];
  #child: ChildProcess | null = null;
  #stopping = false;
  #failure: ServiceStartFailed | null = null;
  #restarting: Promise<void> = Promise.resolve();
  readonly #exitHook = () => {
    if (this.#child !== null && alive(this.#child)) this.#child.kill('SIGKILL');
  };

  private constructor(options: ServiceSupervisorOptions) {
    this.#options = options;
  }

  /**
   * Starts the child and waits until it is healthy.
   * @throws {ServiceStartFailed} the child exited first (its output is in the error), could not be spawned, or
   * was not healthy within `startTimeoutMs` (it is then killed).
   */
  static async start(options: ServiceSupervisorOptions): Promise<ServiceSupervisor> {
    const supervisor = new ServiceSupervisor(options);
    process.on('exit', supervisor.#exitHook);
    try {
      await supervisor.#launch();
    } catch (error) {
      await supervisor.stop();
      throw error;
    }
    return supervisor;
  }

  /** The pid of the current child (0 before it was spawned). */
  get pid(): number {
    return this.#child?.pid ?? 0;
  }

  /** Every restart so far, oldest first. */
  get restarts(): readonly ServiceRestart[] {
    return [...this.#restarts];
  }

  /** Set when restarting failed `maxFailedRestarts` times in a row: the service is down for good. */
  get failure(): ServiceStartFailed | null {
    return this.#failure;
  }

  /** The last lines every child wrote, oldest first, each as `[<pid> out|err] line`. */
  output(): readonly string[] {
    return this.#tail.lines();
  }

  /**
   * Stops the current child (SIGTERM, then SIGKILL after `stopGraceMs`) and any restart in progress, and waits
   * until the child has exited. Idempotent.
   */
  async stop(): Promise<void> {
    this.#stopping = true;
    const child = this.#child;
    if (child !== null && alive(child)) {
      const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), this.#options.stopGraceMs ?? 5_000);
      await closed;
      clearTimeout(timer);
    }
    await this.#restarting;
    process.off('exit', this.#exitHook);
  }

  /** Spawns a child and resolves once it is healthy; watches it for an unexpected exit afterwards. */
  async #launch(): Promise<ChildProcess> {
    const child = spawn(process.execPath, [this.#options.script, ...this.#options.args], {
      env: this.#options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    this.#child = child;
    const pid = child.pid ?? 0;
    for (const [name, stream] of [
      ['out', child.stdout],
      ['err', child.stderr],
    ] as const) {
      const label = `${pid} ${name}`;
      stream?.setEncoding('utf8');
      stream?.on('data', (chunk: string) => this.#tail.write(label, chunk));
      stream?.on('end', () => this.#tail.end(label));
    }
    const ended = new Promise<string>((resolve) => {
      child.once('close', (code, signal) => resolve(describeExit(code, signal)));
      child.once('error', (error) => {
        this.#tail.write(`${pid} spawn`, `${error.message}\n`);
        if (pid === 0) resolve(`could not be spawned (${error.message})`);
      });
    });
    const abort = new AbortController();
    const timeoutMs = this.#options.startTimeoutMs ?? 30_000;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.#waitHealthy(pid, abort.signal),
        ended.then((exit) => {
          throw new ServiceStartFailed(`pid ${pid} ${exit} before it was healthy`, this.output());
        }),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new ServiceStartFailed(`pid ${pid} was not healthy within ${timeoutMs} ms`, this.output())),
            timeoutMs,
          );
        }),
      ]);
    } catch (error) {
      if (alive(child)) child.kill('SIGKILL');
      throw error;
    } finally {
      abort.abort();
      clearTimeout(timer);
    }
    void ended.then((exit) => {
      if (!this.#stopping) this.#restarting = this.#restart(pid, exit);
    });
    return child;
  }

  async #waitHealthy(pid: number, signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        const response = await fetch(this.#options.healthUrl, {
          signal: AbortSignal.any([signal, AbortSignal.timeout(2_000)]),
        });
        const body = (await response.json().catch(() => null)) as { pid?: unknown } | null;
        if (response.status === 200 && body?.pid === pid) return;
      } catch {
        // not listening yet, or another process answers: try again
      }
      await sleep(25, undefined, { signal }).catch(() => undefined);
    }
  }

  async #restart(fromPid: number, exit: string): Promise<void> {
    const limit = this.#options.maxFailedRestarts ?? 3;
    for (let failures = 0; !this.#stopping; ) {
      try {
        const child = await this.#launch();
        const restart = Object.freeze({ fromPid, toPid: child.pid ?? 0, exit, atMs: Date.now() });
        this.#restarts.push(restart);
        this.#options.onRestart?.(restart);
        return;
      } catch (error) {
        failures += 1;
        if (this.#stopping) return;
        if (failures >= limit) {
          const reason = error instanceof ServiceStartFailed ? error.reason : String(error);
          this.#failure = new ServiceStartFailed(
            `pid ${fromPid} ${exit}, then ${failures} restarts in a row failed; last: ${reason}`,
            this.output(),
          );
          this.#options.onGiveUp?.(this.#failure);
          return;
        }
        await sleep(100 * failures);
      }
    }
  }
}
