import { describe, expect, it } from 'vitest';
import { TargetFileSetUp } from '../lib/file-set-up.js';
import type { TargetFileHooks } from '../lib/target-files.js';

/** A file's prepare and cleanup run around its own targets only, and nothing is left prepared. */
describe('TargetFileSetUp', () => {
  const recorder = () => {
    const events: string[] = [];
    const file = (name: string, ids: string[], failing = false): TargetFileHooks => ({
      file: name,
      ids,
      prepare: async (_log, selected) => {
        events.push(`prepare ${name} ${selected.join(',')}`);
        if (failing) throw new Error('no server');
      },
      cleanup: async () => {
        events.push(`cleanup ${name}`);
      },
    });
    return { events, file };
  };

  it("prepares a file before its first selected target and cleans it up right after its last, before the next file's", async () => {
    const { events, file } = recorder();
    const hooks = [file('core', ['a']), file('scale', ['s1', 's2', 's3']), file('service', ['x'])];
    const order = ['a', 's1', 's2', 'x'];
    const setUp = new TargetFileSetUp(hooks, order, () => {});
    for (const id of order) {
      await setUp.before(id);
      events.push(`run ${id}`);
      await setUp.after(id);
    }
    await setUp.finish();
    expect(events).toEqual([
      'prepare core a',
      'run a',
      'cleanup core',
      'prepare scale s1,s2',
      'run s1',
      'run s2',
      'cleanup scale',
      'prepare service x',
      'run x',
      'cleanup service',
    ]);
  });

  it('cleans up in finish() what an interrupted run left prepared, once, and reports a failed prepare', async () => {
    const { events, file } = recorder();
    const lines: string[] = [];
    const setUp = new TargetFileSetUp([file('scale', ['s1', 's2'], true)], ['s1', 's2'], (line) => lines.push(line));
    await setUp.before('s1');
    await setUp.finish();
    await setUp.finish();
    expect(events).toEqual(['prepare scale s1,s2', 'cleanup scale']);
    expect(setUp.problems).toEqual(['scale prepare failed: no server']);
    expect(lines).toContain('! scale prepare failed: no server');
  });

  it('catches hooks that throw before they return a promise', async () => {
    const lines: string[] = [];
    const throwing: TargetFileHooks = {
      file: 'sync',
      ids: ['s1'],
      prepare: () => {
        throw new Error('at once');
      },
      cleanup: () => {
        throw new Error('also at once');
      },
    };
    const setUp = new TargetFileSetUp([throwing], ['s1'], (line) => lines.push(line));
    await setUp.before('s1');
    await setUp.after('s1');
    expect(setUp.problems).toEqual(['sync prepare failed: at once']);
    expect(lines).toContain('! sync cleanup failed: Error: also at once');
  });

  it('never cleans up a file that was not prepared', async () => {
    const { events, file } = recorder();
    const setUp = new TargetFileSetUp([file('scale', ['s1'])], ['s1'], () => {});
    await setUp.after('s1');
    await setUp.finish();
    expect(events).toEqual([]);
  });
});
