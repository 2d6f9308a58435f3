import { importWithPeers } from 'payonce/internal/core/import-peer.js';
import { loadClickStorm, loadPaymeStorm, loadStorm, loadTelegramStorm, loadUzumStorm } from '../storm-peer.js';

/**
 * What `payonce demo` runs in its own process: the sandbox (`createSandbox`, `newSigningSecret`), the admin token
 * check of the service (whose `payonce serve` children need `@payonce/service` too), the storm (`loadStorm`) and the
 * Payme, Click, Uzum and Telegram storms (as `payme`, `click`, `uzum`, `telegram`).
 * Loaded when the demo runs: the three packages are optional peers of `@payonce/cli`.
 * @throws {MissingPeer} `@payonce/sandbox`, `@payonce/service` or `@payonce/storm` (or a package one needs) is not
 *   installed.
 */
export async function loadDemoPeers() {
  const [sandbox, signer, token, storm, payme, click, uzum, telegram] = await Promise.all([
    importWithPeers('payonce demo', () => import('@payonce/sandbox/internal/create-sandbox.js')),
    importWithPeers('payonce demo', () => import('@payonce/sandbox/internal/webhook-signer.js')),
    importWithPeers('payonce demo', () => import('@payonce/service/internal/admin-token-strength.js')),
    loadStorm('payonce demo'),
    loadPaymeStorm('payonce demo'),
    loadClickStorm('payonce demo'),
    loadUzumStorm('payonce demo'),
    loadTelegramStorm('payonce demo'),
  ]);
  return {
    ...storm,
    payme,
    click,
    uzum,
    telegram,
    createSandbox: sandbox.createSandbox,
    newSigningSecret: signer.newSigningSecret,
    checkAdminTokenStrength: token.checkAdminTokenStrength,
  };
}
