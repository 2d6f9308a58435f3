import { type ChildProcess, spawn } from 'node:child_process';

/** How many of the app's last output lines are kept, to show when it does not start or dies. */
const KEPT_LINES = 40;

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

/**
 * The app `payonce storm --start CMD` runs: the command in a shell, in its own process group (so the shell's
 * children die with it), its output kept (the last 40 lines) for the error when it does not start. Stopped by its
 * pid: SIGTERM to the group, SIGKILL after `graceMs`.
 */
export class AppProcess {
  private child: ChildProcess | null = null;
  private exit: Promise<void> = Promise.resolve();
  private exitText: string | null = null;
  private readonly lines: string[] = [];

  constructor(
    readonly command: string,
    private readonly env: NodeJS.ProcessEnv,
    private readonly graceMs = 5_000,
  ) {}

  /** The running app's pid (its process group's id), or `null` when it is not running. */
  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  /** Why the app ended on its own (`exited with status 1`), or `null` while it runs. */
  get exited(): string | null {
    return this.exitText;
  }

  /** The app's last output lines (stdout and stderr, in order). */
  get output(): readonly string[] {
    return this.lines;
  }

  /** Spawns the command (`sh -c`); resolves once it was spawned. @throws the spawn error (no shell). */
  async start(): Promise<void> {
    this.exitText = null;
    const child = spawn(this.command, {
      shell: true,
      detached: true, // its own process group: stop() reaches the shell's children too
      env: this.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    for (const stream of [child.stdout, child.stderr]) {
      let rest = '';
      stream?.setEncoding('utf8').on('data', (chunk: string) => {
        const parts = (rest + chunk).split('\n');
        rest = parts.pop() ?? '';
        this.lines.push(...parts);
        this.lines.splice(0, Math.max(0, this.lines.length - KEPT_LINES));
      });
    }
    this.exit = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.exitText = signal === null ? `exited with status ${code}` : `was killed by ${signal}`;
        if (this.child === child) this.child = null;
        resolve();
      });
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
    this.signal('SIGKILL');
    await this.exit;
    if (pid !== undefined) await groupGone(pid);
  }

  /** Stops the app: SIGTERM to its process group, SIGKILL after the grace period (and to whatever of the group
   * outlived the shell); resolves when it ended. */
  async stop(): Promise<void> {
    const pid = this.child?.pid;
    if (pid === undefined) return;
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
