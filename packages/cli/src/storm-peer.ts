import type { JunitRun } from '@payonce/storm/internal/storm-junit.js';
import { importWithPeers } from 'payonce/internal/core/import-peer.js';

/**
 * The parts of `@payonce/storm` that `payonce storm` and `payonce demo` run: `runStorm` and `repeatStorm`, its
 * default concurrency and its "target unavailable" error, the table and summary of a report, its JUnit XML and HTML
 * report (and those of a run that gave no verdict), and the numbers of the scenarios
 * that kill a service process. Loaded when such a command runs: the storm is an optional peer of `@payonce/cli`.
 * @param neededFor the command, for the message (e.g. `payonce storm`).
 * @throws {MissingPeer} `@payonce/storm` (or a package it needs) is not installed.
 */
export async function loadStorm(neededFor: string) {
  const [run, table, scenarios, junit, html, repeat, htmlError] = await Promise.all([
    importWithPeers(neededFor, () => import('@payonce/storm/internal/run-storm.js')),
    importWithPeers(neededFor, () => import('@payonce/storm/internal/storm-table.js')),
    importWithPeers(neededFor, () => import('@payonce/storm/internal/all-scenarios.js')),
    importWithPeers(neededFor, () => import('@payonce/storm/internal/storm-junit.js')),
    importWithPeers(neededFor, () => import('@payonce/storm/internal/storm-html.js')),
    importWithPeers(neededFor, () => import('@payonce/storm/internal/repeat-storm.js')),
    importWithPeers(neededFor, () => import('@payonce/storm/internal/storm-html-error.js')),
  ]);
  return {
    runStorm: run.runStorm,
    repeatStorm: repeat.repeatStorm,
    stormHtmlReport: html.stormHtmlReport,
    stormJunitXmlRuns: junit.stormJunitXmlRuns,
    StormTargetUnavailable: run.StormTargetUnavailable,
    DEFAULT_STORM_CONCURRENCY: run.DEFAULT_STORM_CONCURRENCY,
    formatStormTable: table.formatStormTable,
    stormSummary: table.stormSummary,
    KILLING_SCENARIO_IDS: scenarios.KILLING_SCENARIO_IDS,
    stormJunitXml: junit.stormJunitXml,
    stormJunitErrorXml: junit.stormJunitErrorXml,
    stormHtmlErrorReport: htmlError.stormHtmlErrorReport,
  };
}

/**
 * The JUnit XML of a provider storm's report (`--junit FILE`), and the JUnit XML and HTML page of a run that gave no
 * verdict (the endpoint or the app did not answer, the app exited), each named `payonce storm --provider <provider>`.
 * @throws {MissingPeer} `@payonce/storm` is not installed.
 */
async function providerReports(neededFor: string, provider: string) {
  const [junit, html] = await Promise.all([
    importWithPeers(neededFor, () => import('@payonce/storm/internal/storm-junit.js')),
    importWithPeers(neededFor, () => import('@payonce/storm/internal/storm-html-error.js')),
  ]);
  const suite = `payonce storm --provider ${provider}`;
  return {
    junit: (report: JunitRun) => junit.stormJunitXml(report, suite),
    junitError: (code: string, message: string) => junit.stormJunitErrorXml(code, message, suite),
    htmlError: (code: string, message: string) => html.stormHtmlErrorReport(code, message, suite),
  };
}

/**
 * The parts of `@payonce/storm` that `payonce storm --provider payme` runs: `runPaymeStorm` (and
 * `runAppPaymeStorm`, with `--adapter`), the reference service's Payme target, the table, summary, HTML and JUnit reports, the "target unavailable" error and the numbers of the scenarios
 * that run alone. Loaded when the command runs: the storm is an optional peer of `@payonce/cli`.
 * @param neededFor the command, for the message.
 * @throws {MissingPeer} `@payonce/storm` (or a package it needs) is not installed.
 */
export async function loadPaymeStorm(neededFor: string) {
  const [run, target, table, scenarios, stripe, app, reports] = await Promise.all([
    importWithPeers(neededFor, () => import('@payonce/storm/internal/payme/run-payme-storm.js')),
    importWithPeers(neededFor, () => import('@payonce/storm/internal/payme/service-payme-target.js')),
    importWithPeers(neededFor, () => import('@payonce/storm/internal/payme/payme-storm-table.js')),
    importWithPeers(neededFor, () => import('@payonce/storm/internal/payme/all-payme-scenarios.js')),
    importWithPeers(neededFor, () => import('@payonce/storm/internal/run-storm.js')),
    importWithPeers(neededFor, () => import('@payonce/storm/internal/payme/run-app-payme-storm.js')),
    providerReports(neededFor, 'payme'),
  ]);
  return {
    runPaymeStorm: run.runPaymeStorm,
    runAppPaymeStorm: app.runAppPaymeStorm,
    servicePaymeTarget: target.servicePaymeTarget,
    formatPaymeStormTable: table.formatPaymeStormTable,
    paymeStormSummary: table.paymeStormSummary,
    html: table.paymeStormHtml,
    ...reports,
    StormTargetUnavailable: stripe.StormTargetUnavailable,
    aloneIds: scenarios.ALL_PAYME_SCENARIOS.filter((s) => s.alone === true).map((s) => s.id),
  };
}

/**
 * The parts of `@payonce/storm` that `payonce storm --provider click` runs: `runClickStorm` (and
 * `runAppClickStorm`, with `--adapter`), the reference service's
 * Click target, the table, summary, HTML and JUnit reports, the "target unavailable" error and the numbers of the scenarios that run
 * alone. Loaded when the command runs: the storm is an optional peer of `@payonce/cli`.
 * @param neededFor the command, for the message.
 * @throws {MissingPeer} `@payonce/storm` (or a package it needs) is not installed.
 */
export async function loadClickStorm(neededFor: string) {
  const [run, target, table, scenarios, stripe, app, reports] = await Promise.all([
    importWithPeers(neededFor, () => import('@payonce/storm/internal/click/run-click-storm.js')),
    importWithPeers(neededFor, () => import('@payonce/storm/internal/click/service-click-target.js')),
    importWithPeers(neededFor, () => import('@payonce/storm/internal/click/click-storm-table.js')),
    importWithPeers(neededFor, () => import('@payonce/storm/internal/click/all-click-scenarios.js')),
    importWithPeers(neededFor, () => import('@payonce/storm/internal/run-storm.js')),
    importWithPeers(neededFor, () => import('@payonce/storm/internal/click/run-app-click-storm.js')),
    providerReports(neededFor, 'click'),
  ]);
  return {
    runClickStorm: run.runClickStorm,
    runAppClickStorm: app.runAppClickStorm,
    serviceClickTarget: target.serviceClickTarget,
    formatClickStormTable: table.formatClickStormTable,
    clickStormSummary: table.clickStormSummary,
    html: table.clickStormHtml,
    ...reports,
    StormTargetUnavailable: stripe.StormTargetUnavailable,
    aloneIds: scenarios.ALL_CLICK_SCENARIOS.filter((s) => s.alone === true).map((s) => s.id),
  };
}

/**
 * The parts of `@payonce/storm` that `payonce storm --provider uzum` runs: `runUzumStorm` (and `runAppUzumStorm`,
 * with `--adapter`), the reference service's
 * Uzum target, the table, summary, HTML and JUnit reports, the "target unavailable" error and the numbers of the scenarios that run
 * alone. Loaded when the command runs: the storm is an optional peer of `@payonce/cli`.
 * @param neededFor the command, for the message.
 * @throws {MissingPeer} `@payonce/storm` (or a package it needs) is not installed.
 */
export async function loadUzumStorm(neededFor: string) {
  const [run, target, table, scenarios, stripe, app, reports] = await Promise.all([
    importWithPeers(neededFor, () => import('@payonce/storm/internal/uzum/run-uzum-storm.js')),
    importWithPeers(neededFor, () => import('@payonce/storm/internal/uzum/service-uzum-target.js')),
    importWithPeers(neededFor, () => import('@payonce/storm/internal/uzum/uzum-storm-table.js')),
    importWithPeers(neededFor, () => import('@payonce/storm/internal/uzum/all-uzum-scenarios.js')),
    importWithPeers(neededFor, () => import('@payonce/storm/internal/run-storm.js')),
    importWithPeers(neededFor, () => import('@payonce/storm/internal/uzum/run-app-uzum-storm.js')),
    providerReports(neededFor, 'uzum'),
  ]);
  return {
    runUzumStorm: run.runUzumStorm,
    runAppUzumStorm: app.runAppUzumStorm,
    serviceUzumTarget: target.serviceUzumTarget,
    formatUzumStormTable: table.formatUzumStormTable,
    uzumStormSummary: table.uzumStormSummary,
    html: table.uzumStormHtml,
    ...reports,
    StormTargetUnavailable: stripe.StormTargetUnavailable,
    aloneIds: scenarios.ALL_UZUM_SCENARIOS.filter((s) => s.alone === true).map((s) => s.id),
  };
}

/**
 * The parts of `@payonce/storm` and `@payonce/sandbox` that `payonce storm --provider telegram` runs:
 * `runTelegramStorm`, the reference service's Telegram target, the table, summary, HTML and JUnit reports, the "target unavailable" error,
 * the numbers of the scenarios that run alone, and the Telegram sandbox the storm starts as the bot's Bot API.
 * Loaded when the command runs: the storm and the sandbox are optional peers of `@payonce/cli`.
 * @param neededFor the command, for the message.
 * @throws {MissingPeer} `@payonce/storm` or `@payonce/sandbox` (or a package they need) is not installed.
 */
export async function loadTelegramStorm(neededFor: string) {
  const [storm, scenarios, stripe, sandbox, app, reports] = await Promise.all([
    importWithPeers(neededFor, () => import('@payonce/storm/internal/telegram/index.js')),
    importWithPeers(neededFor, () => import('@payonce/storm/internal/telegram/all-telegram-scenarios.js')),
    importWithPeers(neededFor, () => import('@payonce/storm/internal/run-storm.js')),
    importWithPeers(neededFor, () => import('@payonce/sandbox/telegram')),
    importWithPeers(neededFor, () => import('@payonce/storm/internal/telegram/run-app-telegram-storm.js')),
    providerReports(neededFor, 'telegram'),
  ]);
  return {
    runTelegramStorm: storm.runTelegramStorm,
    serviceTelegramTarget: storm.serviceTelegramTarget,
    formatTelegramStormTable: storm.formatTelegramStormTable,
    telegramStormSummary: storm.telegramStormSummary,
    html: storm.telegramStormHtml,
    runAppTelegramStorm: app.runAppTelegramStorm,
    ...reports,
    createTelegramSandbox: sandbox.createTelegramSandbox,
    StormTargetUnavailable: stripe.StormTargetUnavailable,
    aloneIds: scenarios.ALL_TELEGRAM_SCENARIOS.filter((s) => s.alone === true).map((s) => s.id),
  };
}
