/**
 * `@payonce/cli`: the payonce command line as a module. The `payonce` executable of the `payonce` package hands
 * every command to {@link runCli} when this package is installed.
 */
export type { CliIo } from './cli-io.js';
export { createProgram, runCli } from './run-cli.js';
