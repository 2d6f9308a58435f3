import { importWithPeers } from 'payonce/internal/core/import-peer.js';

/**
 * The parts of `@payonce/storm` that `payonce storm` and `payonce demo` run: `runStorm`, its default concurrency and
 * its "target unavailable" error, the table and summary of a report, and the numbers of the scenarios that kill a
 * service process. Loaded when such a command runs: the storm is an optional peer of `@payonce/cli`.
 * @param neededFor the command, for the message (e.g. `payonce storm`).
 * @throws {MissingPeer} `@payonce/storm` (or a package it needs) is not installed.
 */
export async function loadStorm(neededFor: string) {
  const [run, table, scenarios] = await Promise.all([
    importWithPeers(neededFor, () => import('@payonce/storm/internal/run-storm.js')),
    importWithPeers(neededFor, () => import('@payonce/storm/internal/storm-table.js')),
    importWithPeers(neededFor, () => import('@payonce/storm/internal/all-scenarios.js')),
  ]);
  return {
    runStorm: run.runStorm,
    StormTargetUnavailable: run.StormTargetUnavailable,
    DEFAULT_STORM_CONCURRENCY: run.DEFAULT_STORM_CONCURRENCY,
    formatStormTable: table.formatStormTable,
    stormSummary: table.stormSummary,
    KILLING_SCENARIO_IDS: scenarios.KILLING_SCENARIO_IDS,
  };
}
