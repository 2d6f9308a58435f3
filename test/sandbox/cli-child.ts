// `payonce <args>` from the CLI's sources, for a test that must run a long-lived command in its own process and
// stop it with SIGTERM (the CLI waits for a signal). Placeholders only.
import { runCli } from '../../packages/cli/src/run-cli.js';

process.exitCode = await runCli(process.argv.slice(2));
