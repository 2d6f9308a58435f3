/**
 * The command line was wrong (unsupported or malformed `--database-url`, …): the message says what to pass
 * instead. `payonce` prints it and exits with status 2, like commander's own usage errors.
 */
export class CliUsageError extends Error {
  readonly exitCode = 2;
  constructor(message: string) {
    super(message);
    this.name = 'CliUsageError';
  }
}
