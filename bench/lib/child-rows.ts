import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { NamespaceInfo } from './namespaces.js';
import type { OneRun, RowRunner, WorkloadSizes } from './run-rows.js';

/** What the parent tells a row's child process to do next. */
export type RowCommand = { readonly type: 'unique' } | { readonly type: 'storm' };

/** What a row's child process reports. */
export type RowReport =
  | { readonly type: 'warm' }
  | { readonly type: 'unique-done' }
  | { readonly type: 'done'; readonly run: OneRun }
  | { readonly type: 'failed'; readonly error: string };

/** The argument a row's child process is started with (JSON in argv[2]). */
export interface RowChildConfig {
  readonly id: string;
  readonly ns: NamespaceInfo;
  readonly sizes: WorkloadSizes;
  readonly rep: number;
}

const CHILD = fileURLToPath(new URL('./row-child.ts', import.meta.url));

/** A child that has not answered for this long is killed and its row reported failed. */
const CHILD_TIMEOUT_MS = 120_000;

/**
 * Runs one repetition of one row in a child process of its own (`node --expose-gc --import tsx lib/row-child.ts`),
 * which imports only that row's implementation and driver (`subjects/load-subject.ts`). The peak RSS reported is
 * that process's, and rows share no heap, GC or JIT state. The parent empties the namespace between the steps, so
 * the child never loads the other backends' drivers either. Every row — bare, payonce and peers — runs the same way.
 */
export const runInChild: RowRunner = (subject, ns, sizes, rep) =>
  new Promise<OneRun>((resolve, reject) => {
    const config: RowChildConfig = { id: subject.id, ns: ns.info, sizes, rep };
    const child: ChildProcess = fork(CHILD, [JSON.stringify(config)], {
      execArgv: ['--expose-gc', '--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(
        () => fail(new Error(`row ${subject.id} did not answer within ${CHILD_TIMEOUT_MS} ms`)),
        CHILD_TIMEOUT_MS,
      );
    };
    arm();
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (child.exitCode === null) child.kill('SIGKILL');
      reject(error);
    };
    const send = (command: RowCommand) => {
      arm();
      child.send(command);
    };
    child.on('exit', (code, signal) => {
      if (!settled) fail(new Error(`row ${subject.id} exited with ${code ?? signal} before reporting`));
    });
    child.on('error', fail);
    child.on('message', (report: RowReport) => {
      if (settled) return;
      if (report.type === 'failed') return fail(new Error(report.error));
      if (report.type === 'done') {
        settled = true;
        clearTimeout(timer);
        // The next row starts once this process is gone (closing its connections), or after 10 s at most.
        const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
        const done = () => {
          clearTimeout(kill);
          resolve(report.run);
        };
        if (child.exitCode !== null || child.signalCode !== null) done();
        else child.once('exit', done);
        return;
      }
      ns.reset().then(
        () => send({ type: report.type === 'warm' ? 'unique' : 'storm' }),
        (error: unknown) => fail(error instanceof Error ? error : new Error(String(error))),
      );
    });
  });
