/**
 * The library's `payonce` executable (`bin/payonce.js` imports the build of this file). `payonce migrate` is the
 * library's own command and runs here; every other command (demo, serve, sandbox, storm, console, relay, purge, …)
 * belongs to the tooling package `@payonce/cli`, which is loaded when installed. @see runPayonce
 */
import { runPayonce } from './run-payonce.js';

process.exitCode = await runPayonce(process.argv.slice(2));
