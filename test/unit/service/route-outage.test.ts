import { describe, expect, it } from 'vitest';
import { problemOf } from '../../../packages/service/src/http-edge.js';

/** What node-postgres throws when the server ends the connection under a statement, or refuses one. */
function pgError(message: string, code?: string): Error {
  return Object.assign(new Error(message), code === undefined ? {} : { code });
}

// An outside attack (issue #40, 2026-12-07): `pg_terminate_backend` under a checkout answered a generic 500. The
// database failing under a route's own statements is the store being down: 503 + Retry-After, never 500.
describe("a database outage met by a service route's own statements", () => {
  it.each([
    [
      'a backend terminated by the administrator',
      pgError('terminating connection due to administrator command', '57P01'),
    ],
    ['the connection ended mid-query', pgError('Connection terminated unexpectedly')],
    ['a deadlock after the retries', pgError('deadlock detected', '40P01')],
    ['a refused connection', pgError('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
  ])('%s is 503 STORE_UNAVAILABLE with Retry-After', (_, error) => {
    const answer = problemOf(error);
    expect(answer?.status).toBe(503);
    expect(answer?.headers['retry-after']).toMatch(/^[1-9]\d*$/);
    expect(JSON.parse(new TextDecoder().decode(answer?.body))).toMatchObject({ code: 'STORE_UNAVAILABLE' });
  });

  it('a statement the database refused for its data is still a server error (500), not an outage', () => {
    expect(problemOf(pgError('duplicate key value violates unique constraint', '23505'))).toBeNull();
    expect(problemOf(new Error('a bug'))).toBeNull();
  });
});
