import type * as Pino from 'pino';
import type { DestinationStream, Logger, LoggerOptions } from 'pino';
import { requirePeer } from '../core/import-peer.js';
import { createRedactor, REDACTED, type RedactionOptions, type Redactor } from '../webhooks/journal/redact.js';

// pino is an optional peer: importing `payonce/observe` without it throws MissingPeer naming it.
const { pino } = requirePeer<typeof Pino>('pino', 'payonce/observe');

/** Options of {@link createLogger}. */
export interface PayonceLoggerOptions {
  /** Minimum level. @default 'info' */
  level?: LoggerOptions['level'];
  /** Where JSON lines go (a file, a test's capture stream). @default stdout */
  destination?: DestinationStream;
  /** The redaction used for the journal; share the intake's `redactor` to log exactly what is journaled. @default DEFAULT_REDACT_PATHS */
  redaction?: RedactionOptions | Redactor;
  /** Fields added to every line. @default { service: 'payonce' } */
  base?: Record<string, unknown>;
}

/** Request headers that carry credentials or signatures, redacted wherever a `headers` object is logged. */
const SECRET_HEADERS = [
  'authorization',
  'cookie',
  'stripe-signature',
  'webhook-signature',
  'svix-signature',
  'x-hub-signature',
  'x-hub-signature-256',
  'x-shopify-hmac-sha256',
];

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * pino `redact.paths` (fast-redact syntax) for redaction paths: `**.email` becomes `email`, `*.email` and
 * `*.*.email` (pino has no any-depth wildcard; deeper values are caught by the redaction function the logger
 * also runs), plus the signature and credential headers under `headers`, `req.headers` and `*.headers`.
 * Segments that are not plain identifiers are left to the redaction function.
 * @see https://getpino.io/#/docs/redaction.
 */
export function pinoRedactPaths(paths: readonly string[]): string[] {
  const out = new Set<string>();
  for (const path of paths) {
    const anywhere = path.startsWith('**.');
    const segments = (anywhere ? path.slice(3) : path).split('.');
    if (!segments.every((s) => s === '*' || IDENTIFIER.test(s))) continue;
    const tail = segments.join('.');
    out.add(tail);
    if (anywhere) {
      out.add(`*.${tail}`);
      out.add(`*.*.${tail}`);
    }
  }
  for (const header of SECRET_HEADERS) {
    for (const parent of ['headers', 'req.headers', '*.headers']) out.add(`${parent}["${header}"]`);
  }
  return [...out];
}

/** A copy of `error` whose message and stack are scrubbed; pino's `err` serializer still sees an `Error`. */
function scrubbedError(error: Error, redactor: Redactor): Error {
  const copy = new Error(redactor.scrubText(error.message));
  copy.name = error.name;
  copy.stack = error.stack === undefined ? undefined : redactor.scrubText(error.stack);
  if ('code' in error && typeof error.code === 'string') Object.assign(copy, { code: error.code });
  return copy;
}

function cleanArg(arg: unknown, redactor: Redactor): unknown {
  if (typeof arg === 'string') return redactor.scrubText(arg);
  if (arg instanceof Error) return scrubbedError(arg, redactor);
  if (typeof arg !== 'object' || arg === null) return arg;
  const rest: Record<string, unknown> = {};
  const errors: Record<string, Error> = {};
  for (const [key, value] of Object.entries(arg)) {
    if (value instanceof Error) errors[key] = scrubbedError(value, redactor);
    else rest[key] = value;
  }
  return { ...redactor.redact(rest), ...errors };
}

/**
 * A pino logger that cannot leak what the journal hides: pino's own `redact` paths (from
 * {@link pinoRedactPaths}, censor `[REDACTED]`) plus a `logMethod` hook that runs the journal's redaction
 * function over every merged object (any depth, and e-mail / card-number scrubbing of string values) and scrubs
 * message strings and error messages. Nothing in `src/core` or the intake imports pino; they are wired with
 * `logIntake` / `logGuard`.
 * @see docs/design.md §2 `src/observe`, §5 redaction; STYLE pattern 12.
 * @example const logger = createLogger({ redaction: intake.redactor }); logIntake(intake, logger);
 */
export function createLogger(options: PayonceLoggerOptions = {}): Logger {
  const redactor: Redactor =
    options.redaction !== undefined && 'redact' in options.redaction
      ? options.redaction
      : createRedactor(options.redaction);
  const settings: LoggerOptions = {
    level: options.level ?? 'info',
    base: options.base ?? { service: 'payonce' },
    redact: { paths: pinoRedactPaths(redactor.paths), censor: REDACTED },
    hooks: {
      logMethod(args, method) {
        const cleaned = args.map((arg) => cleanArg(arg, redactor)) as Parameters<typeof method>;
        method.apply(this, cleaned);
      },
    },
  };
  return options.destination ? pino(settings, options.destination) : pino(settings);
}
