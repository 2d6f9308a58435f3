import type { Verdict } from './scenario.js';

/** A scenario's result as JUnit reads it (the Stripe storm's and every provider storm's results have these). */
export interface JunitCase {
  readonly id: number;
  readonly name: string;
  readonly criterion: string;
  readonly verdict: Verdict;
  readonly reasons: readonly string[];
  readonly notes: readonly string[];
  readonly durationMs: number;
}

/** A storm run as JUnit reads it: its target and provider, its seed when the storm has one, its results. */
export interface JunitRun {
  readonly target: string;
  readonly provider: string;
  /** `--seed` replays the run (the Stripe storm); absent for the provider storms, which draw nothing. */
  readonly seed?: number;
  readonly startedAtMs: number;
  readonly durationMs: number;
  readonly results: readonly JunitCase[];
}

/**
 * Every character XML 1.0 forbids, even escaped (its `Char` production allows only tab, LF, CR, U+0020–U+D7FF,
 * U+E000–U+FFFD and U+10000–U+10FFFF): C0 controls, lone surrogates, U+FFFE and U+FFFF.
 * @see https://www.w3.org/TR/xml/#charsets
 */
const NOT_XML_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** `text` escaped for an XML attribute or text node (`&`, `<`, `>`, quotes; characters XML 1.0 forbids dropped). */
function xml(text: string): string {
  return text
    .replace(NOT_XML_CHAR, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

const seconds = (ms: number) => (ms / 1000).toFixed(3);

function testcase(suite: string, result: JunitCase): string {
  const open = `    <testcase classname="${xml(suite)}" name="${xml(`${result.id}. ${result.name}`)}" time="${seconds(result.durationMs)}"`;
  const reasons = result.reasons.join('\n');
  if (result.verdict === 'pass') return `${open}/>`;
  if (result.verdict === 'skip') return `${open}>\n      <skipped message="${xml(reasons)}"/>\n    </testcase>`;
  const detail = [`criterion: ${result.criterion}`, ...result.reasons, ...result.notes.map((n) => `note: ${n}`)];
  return [
    `${open}>`,
    `      <failure message="${xml(result.reasons[0] ?? 'failed')}" type="StormViolation">${xml(detail.join('\n'))}</failure>`,
    '    </testcase>',
  ].join('\n');
}

/**
 * A storm report as JUnit XML for CI systems (`payonce storm --junit FILE`): one `<testsuite>` named `suiteName`,
 * one `<testcase>` per scenario run (`"8. same webhook twice"`, time in seconds); a failed scenario carries a
 * `<failure>` whose message is its first reason and whose text holds the criterion, every reason and the notes; a
 * skipped one a `<skipped message>` with the skip reason. The seed is a `<property>` (`--seed` replays the run).
 * Format: the JUnit XML schema CI systems read (testsuites/testsuite/testcase/failure/skipped).
 */
export function stormJunitXml(report: JunitRun, suiteName = 'payonce storm'): string {
  return stormJunitXmlRuns([report], suiteName);
}

function suite(report: JunitRun, suiteName: string): string[] {
  const count = (verdict: Verdict) => report.results.filter((r) => r.verdict === verdict).length;
  const attributes = `name="${xml(suiteName)}" tests="${report.results.length}" failures="${count('fail')}" errors="0" skipped="${count('skip')}" time="${seconds(report.durationMs)}"`;
  return [
    `  <testsuite ${attributes} timestamp="${new Date(report.startedAtMs).toISOString()}">`,
    '    <properties>',
    ...(report.seed === undefined ? [] : [`      <property name="seed" value="${report.seed}"/>`]),
    `      <property name="target" value="${xml(report.target)}"/>`,
    `      <property name="provider" value="${xml(report.provider)}"/>`,
    '    </properties>',
    ...report.results.map((result) => testcase(suiteName, result)),
    '  </testsuite>',
  ];
}

/**
 * The JUnit XML of several storm runs (`payonce storm --repeat N`): one `<testsuite>` per run, named
 * `"<suiteName> (run i of N, seed S)"` when there are several (just `suiteName` for one), each as
 * {@link stormJunitXml} writes it, its seed a `<property>`; the `<testsuites>` totals add them up.
 */
export function stormJunitXmlRuns(runs: readonly JunitRun[], suiteName = 'payonce storm'): string {
  const all = runs.flatMap((r) => r.results);
  const count = (verdict: Verdict) => all.filter((r) => r.verdict === verdict).length;
  const durationMs = runs.reduce((n, r) => n + r.durationMs, 0);
  const name = (report: JunitRun, i: number) =>
    runs.length === 1
      ? suiteName
      : `${suiteName} (run ${i + 1} of ${runs.length}${report.seed === undefined ? '' : `, seed ${report.seed}`})`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xml(suiteName)}" tests="${all.length}" failures="${count('fail')}" errors="0" skipped="${count('skip')}" time="${seconds(durationMs)}">`,
    ...runs.flatMap((report, i) => suite(report, name(report, i))),
    '</testsuites>',
    '',
  ].join('\n');
}

/**
 * The JUnit XML of a storm that could not run (the app or the sandbox did not answer): one `<testcase>`
 * `"preflight"` with an `<error>` carrying `code` and `message`, so a CI system shows why nothing ran.
 */
export function stormJunitErrorXml(code: string, message: string, suiteName = 'payonce storm'): string {
  const attributes = `name="${xml(suiteName)}" tests="1" failures="0" errors="1" skipped="0" time="0.000"`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites ${attributes}>`,
    `  <testsuite ${attributes}>`,
    `    <testcase classname="${xml(suiteName)}" name="preflight" time="0.000">`,
    `      <error message="${xml(message)}" type="${xml(code)}">${xml(message)}</error>`,
    '    </testcase>',
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
