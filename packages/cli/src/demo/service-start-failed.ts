/**
 * The service child process of `payonce demo` did not become healthy: it exited before answering `GET /healthz`
 * with its own pid (port taken, database unreachable, bad configuration, …), or did not answer in time, or kept
 * dying after restarts. `output` holds the last lines it wrote (stdout and stderr). The CLI prints the message
 * and those lines and exits 1.
 */
export class ServiceStartFailed extends Error {
  /**
   * @param reason what happened, e.g. `exited with code 1 before it was healthy`.
   * @param output the child's last output lines, oldest first.
   */
  constructor(
    readonly reason: string,
    readonly output: readonly string[],
  ) {
    super(`the payonce service did not start: ${reason}`);
    this.name = 'ServiceStartFailed';
  }
}
