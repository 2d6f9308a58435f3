import { importWithPeers } from 'payonce/internal/core/import-peer.js';

/**
 * The admin reads of `@payonce/service` that `payonce inspect`, `payonce jobs` and `payonce receipts` print:
 * `openAdminReads` (a read-only connection to the database) and the order timeline, job and receipt lists.
 * Loaded when such a command runs: the service is an optional peer of `@payonce/cli`.
 * @param neededFor the command, for the message (e.g. `payonce jobs`).
 * @throws {MissingPeer} `@payonce/service` (or a package it needs) is not installed.
 */
export async function loadAdminReads(neededFor: string) {
  const [open, lists, timeline] = await Promise.all([
    importWithPeers(neededFor, () => import('@payonce/service/internal/admin/open-admin-reads.js')),
    importWithPeers(neededFor, () => import('@payonce/service/internal/admin/admin-lists.js')),
    importWithPeers(neededFor, () => import('@payonce/service/internal/admin/admin-timeline.js')),
  ]);
  return {
    openAdminReads: open.openAdminReads,
    listJobs: lists.listJobs,
    listReceipts: lists.listReceipts,
    orderTimeline: timeline.orderTimeline,
  };
}
