import type { ClickStormReport } from '@payonce/storm/internal/click/run-click-storm.js';
import type { PaymeStormReport } from '@payonce/storm/internal/payme/run-payme-storm.js';
import type { TelegramStormReport } from '@payonce/storm/internal/telegram/run-telegram-storm.js';
import type { UzumStormReport } from '@payonce/storm/internal/uzum/run-uzum-storm.js';
import type { CliIo } from '../cli-io.js';
import { clickStormOf, uzumStormOf } from '../commands/storm-click-uzum.js';
import { paymeStormOf } from '../commands/storm-payme.js';
import type { CommandReport, LoadedProviderStorm } from '../commands/storm-provider.js';
import { telegramStormOf } from '../commands/storm-telegram.js';
import type { loadDemoPeers } from './demo-peers.js';
import { runDemoProviderStorm } from './demo-provider-storm.js';

/** The credentials the demo starts its service children with, for the Payme, Click, Uzum and Telegram endpoints. */
export interface DemoLocalCredentials {
  readonly paymeKey: string;
  readonly click: { readonly serviceId: number; readonly secretKey: string };
  readonly uzum: { readonly login: string; readonly password: string; readonly serviceId: number };
  /** The bot token, the webhook's secret token, and the Bot API URL where the Telegram storm's sandbox listens. */
  readonly telegram: { readonly botToken: string; readonly secretToken: string; readonly apiUrl: string };
}

/** What the Payme, Click, Uzum and Telegram storms of the demo found. */
export interface DemoLocalStorms {
  /** Each storm's report; `null` when it did not run (unavailable, or Payme skipped for an earlier run's key). */
  readonly payme: PaymeStormReport | null;
  readonly click: ClickStormReport | null;
  readonly uzum: UzumStormReport | null;
  readonly telegram: TelegramStormReport | null;
  /** Failed scenarios (`Click 3. lost answer…`) and storms that could not run (`the Uzum storm (…)`). */
  readonly failed: readonly string[];
  /** For the JSON report: each storm's report, or `{ passed: false, error }` when its endpoint was unavailable. */
  readonly reports: Readonly<Record<'payme' | 'click' | 'uzum' | 'telegram', unknown>>;
}

/** Why a Payme key refusal on a database the user gave is a skip, not a failure. */
const EARLIER_KEY =
  'the database keeps the Payme key of an earlier run in payonce_payme_keys, and a stored key wins over ' +
  'PAYONCE_PAYME_KEY (docs/service.md); run the demo on a fresh database to include the Payme storm';

/**
 * The demo's Payme, Click, Uzum and Telegram storms, one after the other, against `service` (with replicas, the first one),
 * each whole; a storm whose endpoint is unavailable is a failure, except a Payme key refused on a database the
 * user gave (`givenDatabase`: an earlier run's stored key wins), which is a skip said on stdout.
 * @throws the storms' errors other than `StormTargetUnavailable`.
 */
export async function runDemoLocalStorms(
  io: CliIo,
  peers: Awaited<ReturnType<typeof loadDemoPeers>>,
  input: {
    readonly service: string;
    readonly adminToken: string;
    readonly credentials: DemoLocalCredentials;
    readonly timeoutMs?: number;
    readonly givenDatabase: boolean;
  },
): Promise<DemoLocalStorms> {
  const { service, adminToken, credentials } = input;
  const failed: string[] = [];
  const reports: Record<string, unknown> = { payme: null, click: null, uzum: null, telegram: null };
  const one = async <T extends { close(): Promise<void> }, R extends CommandReport>(
    name: 'Payme' | 'Click' | 'Uzum' | 'Telegram',
    storm: LoadedProviderStorm<T, R>,
  ): Promise<R | null> => {
    io.out('');
    const key = name.toLowerCase();
    try {
      const report = await runDemoProviderStorm(io, name, storm, input.timeoutMs);
      reports[key] = report;
      const names = report.results as readonly { id: number; name?: string; verdict: string }[];
      failed.push(...names.filter((r) => r.verdict === 'fail').map((r) => `${name} ${r.id}. ${r.name ?? ''}`));
      return report;
    } catch (error) {
      if (!(error instanceof storm.StormTargetUnavailable)) throw error;
      if (name === 'Payme' && input.givenDatabase && error.message.includes('(-32504)')) {
        io.out(`Payme storm skipped: ${EARLIER_KEY}`);
        return null;
      }
      reports[key] = { passed: false, error: error.message };
      failed.push(`the ${name} storm (${error.message})`);
      io.err(`${name} storm not run: ${error.message}`);
      return null;
    }
  };
  const payme = await one('Payme', paymeStormOf(peers.payme, { service, key: credentials.paymeKey, adminToken }));
  const click = await one('Click', clickStormOf(peers.click, { service, ...credentials.click, adminToken }));
  const uzum = await one('Uzum', uzumStormOf(peers.uzum, { service, ...credentials.uzum, adminToken }));
  // Telegram: the storm's sandbox is the Bot API the service children were started with (`apiUrl`).
  const { botToken, secretToken, apiUrl } = credentials.telegram;
  const api = new URL(apiUrl);
  const sandbox = await peers.telegram.createTelegramSandbox({
    token: botToken,
    host: api.hostname,
    port: Number(api.port),
  });
  const telegram = await one(
    'Telegram',
    telegramStormOf(peers.telegram, sandbox, { service, secretToken, adminToken }),
  );
  return { payme, click, uzum, telegram, failed, reports: reports as DemoLocalStorms['reports'] };
}
