import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { MissingPeer } from 'payonce/internal/core/import-peer.js';
import { InvalidDatabaseUrl } from 'payonce/internal/stores/database-url.js';
import { type CliIo, processIo } from './cli-io.js';
import { CliUsageError } from './cli-usage-error.js';
import { ALL_COMMANDS } from './commands/all-commands.js';
import { describeError } from './describe-error.js';

function packageVersion(): string {
  const json = readFileSync(new URL('../package.json', import.meta.url), 'utf8');
  return (JSON.parse(json) as { version: string }).version;
}

/** The `payonce` commander program with every command of `ALL_COMMANDS`; errors are thrown, never `process.exit`. */
export function createProgram(io: CliIo = processIo): Command {
  const program = new Command('payonce')
    .description('payonce: exactly-once-in-effect payment processing')
    .version(packageVersion())
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.out(text.replace(/\n$/, '')),
      writeErr: (text) => io.err(text.replace(/\n$/, '')),
      // commander's own usage errors (unknown command or option, missing argument) read like payonce's others.
      outputError: (text, write) => write(`payonce: ${text.replace(/^error: /, '')}`),
    })
    .showHelpAfterError('(payonce --help lists the commands; payonce <command> --help their options)')
    // Each command's flags go to the command they follow: `payonce sandbox telegram --port N` is the subcommand's
    // `--port`, not `sandbox`'s (commander hands a non-positional parent every flag after a subcommand; issue 38).
    .enablePositionalOptions();
  for (const register of ALL_COMMANDS) register(program, io);
  return program;
}

/**
 * Runs `payonce` with `args` (without the node and script paths) and returns the exit status: 0 on success,
 * 2 for a usage error (unknown command, missing option, bad `--database-url`), 1 when the command failed. A package
 * the command needs that is not installed ({@link MissingPeer}) exits 1 with its one line, e.g. `payonce storm needs
 * the package "@payonce/storm": npm install @payonce/storm@0.1.0`, without the loader's error.
 * Never calls `process.exit`, so tests can call it in-process.
 * @example process.exitCode = await runCli(process.argv.slice(2));
 */
export async function runCli(args: readonly string[], io: CliIo = processIo): Promise<number> {
  const program = createProgram(io);
  try {
    // `payonce storm init` is the `storm-init` command (`storm` itself takes no argument).
    const argv = args[0] === 'storm' && args[1] === 'init' ? ['storm-init', ...args.slice(2)] : [...args];
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    const command = args.find((arg) => !arg.startsWith('-')) ?? 'payonce';
    if (error instanceof InvalidDatabaseUrl) {
      io.err(`payonce ${command}: ${error.reason}`);
      return 2;
    }
    if (error instanceof MissingPeer) {
      io.err(error.message);
      return 1;
    }
    io.err(`payonce ${command}: ${describeError(error)}`);
    return error instanceof CliUsageError ? error.exitCode : 1;
  }
}
