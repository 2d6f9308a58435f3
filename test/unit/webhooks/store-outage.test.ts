import { describe, expect, it } from 'vitest';
import { isStoreOutage } from '../../../packages/payonce/src/stores/sql/driver-error.js';
import { problemOfFailure } from '../../../packages/payonce/src/webhooks/intake-problem.js';

/** An error shaped like a driver's: a message and the driver's own fields. */
const driverError = (message: string, fields: Record<string, unknown> = {}) =>
  Object.assign(new Error(message), fields);

const outages = [
  ['node-postgres query_timeout', driverError('Query read timeout')],
  ['node-postgres connection lost', driverError('Connection terminated unexpectedly')],
  ['PostgreSQL statement cancelled (57014)', driverError('canceling statement due to user request', { code: '57014' })],
  ['PostgreSQL admin shutdown (57P01)', driverError('terminating connection', { code: '57P01' })],
  ['PostgreSQL deadlock (40P01)', driverError('deadlock detected', { code: '40P01' })],
  ['PostgreSQL lock not available (55P03)', driverError('could not obtain lock', { code: '55P03' })],
  ['PostgreSQL too many connections (53300)', driverError('too many clients', { code: '53300' })],
  ['MariaDB lock wait timeout (1205)', driverError('Lock wait timeout exceeded', { errno: 1205 })],
  ['MariaDB query interrupted (1317)', driverError('Query execution was interrupted', { errno: 1317 })],
  [
    'MariaDB max_statement_time (1969)',
    driverError('Query execution was interrupted (max_statement_time)', { errno: 1969 }),
  ],
  [
    'mysql2 fatal',
    driverError('Connection lost: The server closed the connection.', {
      fatal: true,
      code: 'PROTOCOL_CONNECTION_LOST',
    }),
  ],
  ['socket refused', driverError('connect ECONNREFUSED 127.0.0.1:5432', { code: 'ECONNREFUSED' })],
  ['SQLite busy', driverError('database is locked', { code: 'SQLITE_BUSY' })],
  ['wrapped in a cause', new Error('the handler failed', { cause: driverError('Query read timeout') })],
] as const;

const notOutages = [
  ['a handler bug', new TypeError("Cannot read properties of undefined (reading 'id')")],
  [
    'PostgreSQL value too long (22001)',
    driverError('value too long for type character varying(200)', { code: '22001' }),
  ],
  ['PostgreSQL unique violation (23505)', driverError('duplicate key value', { code: '23505' })],
  ['MariaDB data too long (1406)', driverError("Data too long for column 'order_ref'", { errno: 1406 })],
  ['a thrown string', 'boom'],
] as const;

describe('a database outage met by a webhook handler', () => {
  it.each(outages)('%s is an outage, answered 503 with Retry-After', (_name, error) => {
    expect(isStoreOutage(error)).toBe(true);
    const problem = problemOfFailure(error);
    expect(problem).toMatchObject({ kind: 'store_unavailable', code: 'STORE_UNAVAILABLE', status: 503 });
    expect(problem.retryAfterMs).toBeGreaterThan(0);
  });

  it.each(notOutages)('%s is not: the handler failed (500)', (_name, error) => {
    expect(isStoreOutage(error)).toBe(false);
    expect(problemOfFailure(error)).toMatchObject({ kind: 'handler_failed', status: 500 });
  });
});
