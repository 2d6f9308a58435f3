import { type ChildProcess, spawn } from 'node:child_process';
import { AppOutput } from './app-output.js';

/** Resolves when no process of group `pid` is left (asked every 20 ms, for at most 2 s: a zombie can linger). */
async function groupGone(pid: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    try {
      process.kill(-pid, 0);
    } catch {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** How long an ended app's output may still arrive after its exit (a grandchild can hold the pipes open). */
const OUTPUT_GRACE_MS = 500;

/**
 * The app `payonce storm --start CMD` runs: the command in a shell, in its own process group (so the shell's
 * children die with it), its output kept ({@link AppOutput}: the last lines, the storm's secrets redacted) for the
 * error when it does not start or dies. Stopped by its pid: SIGTERM to the group, SIGKILL after `graceMs`. An exit
 * the storm did not cause (`kill`, `stop`) is reported to `onUnexpectedExit`.
 */
export class AppProcess {
  /** The app's last output lines (stdout and stderr, in order), secrets redacted. */
  readonly output: AppOutput;
  private child: ChildProcess | null = null;
  private exit: Promise<void> = Promise.resolve();
  private end: Promise<string> = new Promise<string>(() => {});
  private exitText: string | null = null;
  /** The processes the storm itself is ending (`kill`, `stop`): their exit is no news. */
  private readonly ending = new WeakSet<ChildProcess>();
  private unexpected: (why: string) => void = () => {};
  private startCount = 0;
  /** The process group of the last start (its shell's pid): what of it outlives the shell is stopped with it. */
  private group: number | null = null;

  /**
   * @param secrets values the app was given that its output must never show (they are redacted as it arrives).
   */
  constructor(
    readonly command: string,
    private readonly env: NodeJS.ProcessEnv,
    secrets: readonly string[] = [],
    private readonly graceMs = 5_000,
  ) {
    this.output = new AppOutput(secrets);
  }

  /** The running app's pid (its process group's id), or `null` when it is not running. */
  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  /** How many times the command was started (2 and more: the crash scenario restarted it). */
  get starts(): number {
    return this.startCount;
  }

  /** Why the app ended (`exited with status 1`, `was killed by SIGKILL`), or `null` while it runs. */
  get exited(): string | null {
    return this.exitText;
  }

  /**
   * Resolves, with why (as {@link exited}), once the app started last ended and its output was read (its pipes
   * closed, or {@link OUTPUT_GRACE_MS} after its exit); never before it ends.
   */
  ended(): Promise<string> {
    return this.end;
  }

  /** Calls `listener` with why, when a started app ends without `kill()` or `stop()` (once per start). */
  onUnexpectedExit(listener: (why: string) => void): void {
    this.unexpected = listener;
  }

  /** Spawns the command (`sh -c`); resolves once it was spawned. @throws the spawn error (no shell). */
  async start(): Promise<void> {
    this.exitText = null;
    this.startCount += 1;
    const child = spawn(this.command, {
      shell: true,
      detached: true, // its own process group: stop() reaches the shell's children too
      env: this.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    this.group = child.pid ?? null;
    for (const [name, stream] of [
      ['stdout', child.stdout],
      ['stderr', child.stderr],
    ] as const) {
      stream?.setEncoding('utf8');
      stream?.on('data', (chunk: string) => this.output.write(name, chunk));
      stream?.on('end', () => this.output.end(name));
    }
    let why = 'ended';
    this.exit = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        why = signal === null ? `exited with status ${code}` : `was killed by ${signal}`;
        this.exitText = why;
        if (this.child === child) this.child = null;
        resolve();
      });
    });
    this.end = new Promise<string>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const done = () => {
        clearTimeout(timer);
        resolve(why);
      };
      child.once('close', done);
      child.once('exit', () => {
        timer = setTimeout(done, OUTPUT_GRACE_MS);
      });
    }).then((ended) => {
      if (!this.ending.has(child)) this.unexpected(ended);
      return ended;
    });
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
  }

  private signal(signal: NodeJS.Signals, pid = this.child?.pid): void {
    if (pid === undefined) return;
    try {
      process.kill(-pid, signal); // the whole group
    } catch {
      // already gone
    }
  }

  /** SIGKILLs the app's process group and waits for it to end (a crash, for scenario 12). */
  async kill(): Promise<void> {
    const pid = this.child?.pid;
    if (this.child !== null) this.ending.add(this.child);
    this.signal('SIGKILL');
    await this.exit;
    if (pid !== undefined) await groupGone(pid);
  }

  /**
   * Stops the app: SIGTERM to its process group, SIGKILL after the grace period (and to whatever of the group
   * outlived the shell, also when the shell itself had ended); resolves when it ended.
   */
  async stop(): Promise<void> {
    const pid = this.child?.pid;
    if (pid === undefined || this.child === null) {
      const group = this.group;
      this.group = null;
      if (group !== null) this.signal('SIGKILL', group); // the shell ended; a child it started may not have
      if (group !== null) await groupGone(group);
      return;
    }
    this.ending.add(this.child);
    this.signal('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        this.signal('SIGKILL');
        resolve();
      }, this.graceMs);
    });
    await Promise.race([this.exit, late]);
    clearTimeout(timer);
    await this.exit;
    this.signal('SIGKILL', pid); // what of the group outlived its shell
    await groupGone(pid);
  }
}
