/** The arguments of the side scripts (`subject-side.ts`, `http/http-side.ts`), parsed without I/O. */

/**
 * `--name value` pairs of `argv`.
 * @throws {Error} for a bare argument or a flag not in `known`.
 */
export function parseFlags(argv: readonly string[], known: readonly string[]): Map<string, string> {
  const values = new Map<string, string>();
  for (let i = 0; i < argv.length; i += 2) {
    const flag = argv[i]!;
    if (!flag.startsWith('--')) throw new Error(`unexpected argument ${flag}`);
    if (!known.includes(flag.slice(2))) throw new Error(`unknown flag ${flag} (known: --${known.join(', --')})`);
    values.set(flag.slice(2), argv[i + 1] ?? '');
  }
  return values;
}

/**
 * The positive number of flag `name`, or `fallback` when it is absent.
 * @throws {Error} when present but not a positive number.
 */
export function positiveFlag(values: ReadonlyMap<string, string>, name: string, fallback: number): number {
  if (!values.has(name)) return fallback;
  const n = Number(values.get(name));
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} needs a positive number, got ${values.get(name)}`);
  return n;
}

/** The workload a side times. */
export type SideWorkload = 'unique' | 'storm';

/**
 * The workload of flag `--workload` (default `unique`).
 * @throws {Error} for anything else.
 */
export function workloadFlag(values: ReadonlyMap<string, string>): SideWorkload {
  const workload = values.get('workload') ?? 'unique';
  if (workload !== 'unique' && workload !== 'storm') throw new Error(`--workload is unique or storm, got ${workload}`);
  return workload;
}

/** What `subject-side.ts` was asked to run. */
export interface SubjectSideArgs {
  readonly subject: string;
  readonly workload: SideWorkload;
  readonly concurrency: number;
  readonly keys: number;
  readonly seconds: number;
  readonly warmupSeconds: number;
  readonly copies: number;
}

/**
 * Parses the side's arguments; `quick` shortens the default durations.
 * @throws {Error} for a missing `--subject`, an unknown flag or workload, or a non-positive number.
 */
export function parseSubjectSideArgs(argv: readonly string[], quick: boolean): SubjectSideArgs {
  const values = parseFlags(argv, [
    'subject',
    'workload',
    'concurrency',
    'keys',
    'seconds',
    'warmup-seconds',
    'copies',
  ]);
  const subject = values.get('subject');
  if (!subject) throw new Error('--subject <id> is required, e.g. --subject postgres/payonce');
  const workload = workloadFlag(values);
  const get = (name: string, fallback: number) => positiveFlag(values, name, fallback);
  return {
    subject,
    workload,
    concurrency: Math.floor(get('concurrency', 8)),
    keys: Math.floor(get('keys', workload === 'unique' ? 400_000 : 20_000)),
    seconds: get('seconds', quick ? 0.4 : workload === 'unique' ? 2 : 1.5),
    warmupSeconds: get('warmup-seconds', quick ? 0.2 : 1),
    copies: Math.floor(get('copies', 10)),
  };
}

/** The HTTP sides' warm-up before a timed `unique` workload, in seconds. */
const UNIQUE_HTTP_WARMUP_SECONDS = 5;

/** What `http/http-side.ts` was asked to run. */
export interface HttpSideArgs {
  readonly route: string;
  readonly backend: string;
  readonly workload: SideWorkload;
  /** Keep-alive connections (unique) or keys stormed at a time (storm). */
  readonly concurrency: number;
  /** Pre-signed unique deliveries (at most this many are sent), or storm keys. */
  readonly keys: number;
  readonly seconds: number;
  readonly warmupSeconds: number;
  readonly copies: number;
}

/**
 * Parses the HTTP side's arguments; `quick` shortens the default durations.
 * @throws {Error} for a missing `--route` or `--backend`, an unknown flag or workload, or a non-positive number.
 */
export function parseHttpSideArgs(argv: readonly string[], quick: boolean): HttpSideArgs {
  const values = parseFlags(argv, [
    'route',
    'backend',
    'workload',
    'concurrency',
    'keys',
    'seconds',
    'warmup-seconds',
    'copies',
  ]);
  const route = values.get('route');
  const backend = values.get('backend');
  if (!route || !backend) throw new Error('--route <name> and --backend <backend> are required');
  const workload = workloadFlag(values);
  const get = (name: string, fallback: number) => positiveFlag(values, name, fallback);
  return {
    route,
    backend,
    workload,
    concurrency: Math.floor(get('concurrency', 8)),
    keys: Math.floor(get('keys', workload === 'unique' ? 100_000 : 2_000)),
    seconds: get('seconds', quick ? 0.4 : workload === 'unique' ? 2 : 1.5),
    // 5 s for a rate: the server's code must reach V8's optimising tier before the timed part. After 1 s (about
    // 10 000 requests) the adapter's larger path was still partly unoptimised: 0.52–0.59× of the bare route in four
    // alternations, against 0.71–0.75× after 5 s (notes/http-adapter.md). A storm times exactly-once.
    warmupSeconds: get('warmup-seconds', quick ? 0.2 : workload === 'unique' ? UNIQUE_HTTP_WARMUP_SECONDS : 1),
    copies: Math.floor(get('copies', 10)),
  };
}
