/** `payonce demo` found a scenario whose criterion did not hold; the CLI exits 1. */
export class DemoFailed extends Error {
  constructor(readonly failed: readonly string[]) {
    super(`failed scenarios: ${failed.join('; ')}`);
    this.name = 'DemoFailed';
  }
}
