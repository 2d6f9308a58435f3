import { importWithPeers } from 'payonce/internal/core/import-peer.js';

/**
 * The parts of `@payonce/storm` that `payonce replay` runs: reading and checking a capture file, `replay` itself,
 * its table and errors (the `replay/index.js` entry), and `counted` for the header line. Loaded when the command
 * runs: the storm is an optional peer of `@payonce/cli`.
 * @throws {MissingPeer} `@payonce/storm` (or a package it needs, e.g. undici) is not installed.
 */
export async function loadReplay() {
  const [replay, counting] = await Promise.all([
    importWithPeers('payonce replay', () => import('@payonce/storm/internal/replay/index.js')),
    importWithPeers('payonce replay', () => import('@payonce/storm/internal/counted.js')),
  ]);
  return { ...replay, counted: counting.counted };
}
