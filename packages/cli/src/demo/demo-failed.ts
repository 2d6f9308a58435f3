/**
 * `payonce demo` ran, but a scenario failed or the service could not be brought back after a crash: the CLI
 * prints the message and exits 1. `failed` names what failed (scenario names, or the service).
 */
export class DemoFailed extends Error {
  constructor(readonly failed: readonly string[]) {
    super(`failed: ${failed.join('; ')}`);
    this.name = 'DemoFailed';
  }
}
