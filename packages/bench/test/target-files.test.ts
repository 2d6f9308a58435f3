import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTargets } from '../lib/target-files.js';

/** Finding the target files: broken or missing files are reported, never fatal; set-up hooks are picked up. */
const side = (id: string) => ({ id, label: id, backend: null, script: 'x.ts', args: [] });
const target = (id: string) => ({ id, group: 'g', title: id, a: side(`${id}-a`), b: side(`${id}-b`), min: 1 });

describe('targets/*.ts discovery', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'payonce-targets-'));
    await writeFile(
      join(dir, 'core.ts'),
      `export const targets = ${JSON.stringify([target('one'), target('two')])};\n`,
    );
    await writeFile(
      join(dir, 'scale.ts'),
      `export const targets = ${JSON.stringify([target('two'), target('three')])};\n` +
        'export async function prepare(log, ids) { log(ids.join()); }\nexport async function cleanup() {}\n',
    );
    await writeFile(join(dir, 'broken.ts'), "throw new Error('cannot load');\n");
    await writeFile(join(dir, 'shapeless.ts'), 'export const targets = [{ id: "x", min: "3" }];\n');
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('loads every file in name order, skips clashing ids and reports what is missing or broken', async () => {
    const loaded = await loadTargets(dir);
    expect(loaded.targets.map((t) => t.id)).toEqual(['one', 'two', 'three']);
    expect(loaded.files).toEqual([
      { file: 'targets/core.ts', count: 2 },
      { file: 'targets/scale.ts', count: 1 },
    ]);
    expect(loaded.problems).toEqual([
      'targets/service.ts is missing: its targets are not in this run',
      'targets/stack.ts is missing: its targets are not in this run',
      expect.stringMatching(/^targets\/broken\.ts failed to load: .*cannot load/),
      'targets/scale.ts: target ids already taken, skipped: two',
      'targets/shapeless.ts target x: a side without a script',
      'targets/shapeless.ts target x: min is neither a number nor null',
    ]);
  });

  it("keeps a file's prepare and cleanup with the ids of its targets", async () => {
    const { hooks } = await loadTargets(dir);
    const scale = hooks.find((h) => h.file === 'targets/scale.ts')!;
    expect(scale.ids).toEqual(['three']);
    const lines: string[] = [];
    await scale.prepare!((line) => lines.push(line), ['three']);
    expect(lines).toEqual(['three']);
    expect(typeof scale.cleanup).toBe('function');
    expect(hooks.find((h) => h.file === 'targets/core.ts')?.prepare).toBeUndefined();
  });
});
