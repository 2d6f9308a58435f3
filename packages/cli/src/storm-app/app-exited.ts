/**
 * `payonce storm --adapter --start`: the started app ended during the run without the storm ending it (its own
 * crash scenario restarts it; this is any other exit: a crash, an `EADDRINUSE` at its late listen, an OOM kill).
 * The run was stopped at once: no verdict is given about scenarios that ran against a dead app. The message says
 * how it ended and holds its last output lines. Exit status 1; `--report`, `--junit` and `--html` say why, with
 * the code `STORM_APP_EXITED`.
 */
export class AppExited extends Error {
  readonly code = 'STORM_APP_EXITED';
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'AppExited';
  }
}
