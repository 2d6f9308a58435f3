/** `payonce replay` found captures whose answers contradict their `expect`; the CLI exits 1. */
export class ReplayFailed extends Error {
  /** Ids of the contradicted captures, in file order. */
  readonly contradicted: readonly string[];
  constructor(contradicted: readonly string[]) {
    super(`${contradicted.length} capture(s) contradict their expect: ${contradicted.join(', ')}`);
    this.name = 'ReplayFailed';
    this.contradicted = contradicted;
  }
}
