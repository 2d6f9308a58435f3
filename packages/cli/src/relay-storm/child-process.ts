import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** One line a storm child printed, parsed. */
export type ChildLine = Record<string, unknown>;

/** A running storm child (relay or consumer process): its pid, parsed stdout lines, and how it ended. */
export interface StormChild {
  readonly pid: number;
  readonly lines: ChildLine[];
  /** Resolves when the process exited, with the signal that killed it (`SIGKILL` for an injected crash) or `null`. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** stderr so far (for a failure report). */
  stderr(): string;
  /** SIGTERM, then SIGKILL after 5 s; resolves once it exited. */
  stop(): Promise<void>;
}

/**
 * Spawns `node <script> <json config>` for a storm child next to this module (`relay-child.js` /
 * `consumer-child.js`; from the TypeScript sources `--import tsx` is added so tests can run them unbuilt).
 */
export function spawnStormChild(script: 'relay-child' | 'consumer-child', config: unknown): StormChild {
  const fromSource = import.meta.url.endsWith('.ts');
  const file = fileURLToPath(new URL(`./${script}.${fromSource ? 'ts' : 'js'}`, import.meta.url));
  const args = [...(fromSource ? ['--import', 'tsx'] : []), file, JSON.stringify(config)];
  const child: ChildProcess = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: ChildLine[] = [];
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-4_000);
  });
  const reader = createInterface({ input: child.stdout! });
  reader.on('line', (line) => {
    try {
      lines.push(JSON.parse(line) as ChildLine);
    } catch {
      stderr += `\n${line}`;
    }
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  const closedOutput = new Promise<void>((resolve) => reader.once('close', () => resolve()));
  return {
    pid: child.pid ?? -1,
    lines,
    exited: exited.then(async (end) => {
      await closedOutput;
      return end;
    }),
    stderr: () => stderr,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exited;
        clearTimeout(timer);
      }
      await closedOutput;
    },
  };
}

/** Sum of the numeric field `name` over `lines` whose `event` is `event`. */
export function sumOf(lines: readonly ChildLine[], event: string, name: string): number {
  return lines.filter((line) => line.event === event).reduce((total, line) => total + Number(line[name] ?? 0), 0);
}
