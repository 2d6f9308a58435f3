/**
 * `payonce storm --adapter`: the app never became healthy (`adapter.health()` kept throwing for the start budget,
 * or the started app exited first); nothing was run. Exit status 1; `--report` and `--junit` say why, with the code
 * of the storm's own "target unavailable", `STORM_TARGET_UNAVAILABLE`.
 */
export class AppNotHealthy extends Error {
  readonly code = 'STORM_TARGET_UNAVAILABLE';
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'AppNotHealthy';
  }
}
