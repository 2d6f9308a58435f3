/**
 * A row's child process of `npm run bench` (see `child-rows.ts`): opens one row's implementation (and only its
 * driver), warms it up, then runs workload (a) and the storm (b) when the parent says so (the parent empties the
 * namespace in between), and reports the samples, the storm's handler runs and this process's RSS over IPC.
 */
import { loadSubject } from '../subjects/load-subject.js';
import type { RowChildConfig, RowCommand, RowReport } from './child-rows.js';
import { runSteps } from './run-rows.js';
import type { HandlerCounter } from './subject.js';

const report = (message: RowReport) =>
  new Promise<void>((resolve) => {
    if (!process.send) throw new Error('row-child.ts runs as a child of the bench (fork with an IPC channel)');
    process.send(message, () => resolve());
  });

/** Resolves when the parent sends its next command (after it emptied the namespace). */
const nextCommand = () => new Promise<RowCommand>((resolve) => process.once('message', resolve));

const config = JSON.parse(process.argv[2] ?? '{}') as RowChildConfig;
try {
  const subject = await loadSubject(config.id);
  const counter: HandlerCounter = { runs: 0 };
  const deliverer = await subject.open(config.ns, counter);
  try {
    let step = 0;
    const run = await runSteps(
      (id) => deliverer.deliver(id),
      counter,
      config.sizes,
      config.rep,
      async () => {
        const command = nextCommand();
        await report({ type: step++ === 0 ? 'warm' : 'unique-done' });
        await command;
      },
    );
    await report({ type: 'done', run });
  } finally {
    await deliverer.close();
  }
  process.disconnect();
} catch (error) {
  await report({ type: 'failed', error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
  process.exit(1);
}
