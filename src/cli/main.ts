/**
 * The `payonce` executable (`bin/payonce.js` imports the build of this file): runs the command line and sets
 * the exit status. @see `runCli`.
 */
import { runCli } from './run-cli.js';

process.exitCode = await runCli(process.argv.slice(2));
