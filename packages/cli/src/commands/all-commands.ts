import type { Command } from 'commander';
import type { CliIo } from '../cli-io.js';
import { registerConsole } from './console.js';
import { registerDemo } from './demo.js';
import { registerInspect } from './inspect.js';
import { registerJobs } from './jobs.js';
import { registerMigrate } from './migrate.js';
import { registerPurge } from './purge.js';
import { registerReceipts } from './receipts.js';
import { registerRelay } from './relay.js';
import { registerRelayStorm } from './relay-storm.js';
import { registerReplay } from './replay.js';
import { registerSandbox } from './sandbox.js';
import { registerServe } from './serve.js';
import { registerStorm } from './storm.js';
import { registerWorker } from './worker.js';

/** Adds one subcommand to the `payonce` program (created with `program.command(…)`, so it inherits settings). */
export type RegisterCommand = (program: Command, io: CliIo) => void;

/** Every `payonce` subcommand. A new command is a new file in `src/cli/commands/` plus one entry here. */
export const ALL_COMMANDS: readonly RegisterCommand[] = Object.freeze([
  registerMigrate,
  registerDemo,
  registerReplay,
  registerServe,
  registerWorker,
  registerStorm,
  registerConsole,
  registerInspect,
  registerReceipts,
  registerPurge,
  registerJobs,
  registerSandbox,
  registerRelay,
  registerRelayStorm,
]);
