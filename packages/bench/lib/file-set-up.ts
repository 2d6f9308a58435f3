import type { TargetFileHooks } from './target-files.js';

/**
 * Runs each target file's `prepare` right before the first of its selected targets and its `cleanup` right after
 * the last one, so what a file sets up (the scale targets' million seeded rows, MariaDB's grown buffer pool) is gone
 * before the next file's targets are timed: a server still purging or flushing that data would compete with them
 * for the machine's two cores. `finish()` cleans up whatever a failed or interrupted run left prepared.
 * A failing `prepare` is logged and kept in `problems` (its targets still run, and their sides report what is
 * missing); a failing `cleanup` is logged. Neither throws.
 */
export class TargetFileSetUp {
  readonly problems: string[] = [];
  readonly #prepared = new Set<TargetFileHooks>();
  readonly #cleaned = new Set<TargetFileHooks>();

  /**
   * @param hooks every loaded file's hooks.
   * @param selected the ids of the targets this run runs, in run order.
   */
  constructor(
    private readonly hooks: readonly TargetFileHooks[],
    private readonly selected: readonly string[],
    private readonly log: (line: string) => void,
  ) {}

  /** Call before running target `id`: prepares its file if this is the file's first selected target. */
  async before(id: string): Promise<void> {
    const hooks = this.#fileOf(id);
    if (!hooks || this.#prepared.has(hooks)) return;
    this.#prepared.add(hooks);
    if (!hooks.prepare) return;
    this.log(`${hooks.file}: prepare`);
    const ids = hooks.ids.filter((known) => this.selected.includes(known));
    const prepare = hooks.prepare;
    // Through a promise chain, so a hook that throws before its first await (or returns nothing) is caught too.
    await Promise.resolve()
      .then(() => prepare(this.log, ids))
      .catch((error: unknown) => {
        const message = `${hooks.file} prepare failed: ${error instanceof Error ? error.message : String(error)}`;
        this.log(`! ${message}`);
        this.problems.push(message);
      });
  }

  /** Call after running target `id`: cleans its file up if no later selected target belongs to it. */
  async after(id: string): Promise<void> {
    const hooks = this.#fileOf(id);
    if (!hooks) return;
    const rest = this.selected.slice(this.selected.indexOf(id) + 1);
    if (rest.some((later) => hooks.ids.includes(later))) return;
    await this.#cleanup(hooks);
  }

  /** Cleans up every file that was prepared and not yet cleaned up (call in a `finally`). */
  async finish(): Promise<void> {
    for (const hooks of this.#prepared) await this.#cleanup(hooks);
  }

  #fileOf(id: string): TargetFileHooks | undefined {
    return this.hooks.find((h) => h.ids.includes(id));
  }

  async #cleanup(hooks: TargetFileHooks): Promise<void> {
    if (!this.#prepared.has(hooks) || this.#cleaned.has(hooks)) return;
    this.#cleaned.add(hooks);
    if (!hooks.cleanup) return;
    this.log(`${hooks.file}: cleanup`);
    const cleanup = hooks.cleanup;
    await Promise.resolve()
      .then(() => cleanup(this.log))
      .catch((error: unknown) => this.log(`! ${hooks.file} cleanup failed: ${String(error)}`));
  }
}
