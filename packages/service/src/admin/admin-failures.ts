import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { PayonceError } from 'payonce/internal/core/errors.js';
import { databaseReachable } from '../database-reachable.js';
import { failureAnswer, sendResponse } from '../http-edge.js';
import type { ServiceContext } from '../service-context.js';
import { serviceProblem } from '../service-problems.js';
import { actorIfAny } from './admin-actor.js';
import { journalAction } from './admin-audit.js';
import type { AdminParts } from './admin-parts.js';
import { adminProblemOf } from './admin-problem.js';
import { failedActionRecord, isJournaled } from './failed-action.js';

/**
 * The problem answer of an admin scope error: Ajv validation → `ADMIN_QUERY_INVALID`; 429s with Retry-After; a
 * database that does not answer → 503 `STORE_UNAVAILABLE` with Retry-After (`failureAnswer`); else the generic 500.
 */
async function problemFor(ctx: ServiceContext, error: unknown, request: FastifyRequest) {
  const validation = (error as Partial<FastifyError> | null)?.validation;
  if (validation) {
    const where = (error as FastifyError).validationContext ?? 'request';
    const first = validation[0];
    const detail = `${where}${first?.instancePath ?? ''} ${first?.message ?? 'is invalid'}`;
    return serviceProblem('ADMIN_QUERY_INVALID', detail);
  }
  const problem = adminProblemOf(error);
  if (problem) return problem;
  const where = { url: request.routeOptions.url ?? request.url, what: 'admin request failed' };
  return failureAnswer(error, () => databaseReachable(ctx), ctx.logger, where);
}

/** Requests whose failure is journaled (by the action itself or by {@link journalFailure}). */
const failureJournaled = new WeakSet<FastifyRequest>();

/** Journals a failed action (bad input, no key, an unexpected error) that its own code did not journal. */
export async function journalFailure(
  parts: AdminParts,
  request: FastifyRequest,
  failure: { error: unknown; status: number; code: string },
) {
  const actor = actorIfAny(request);
  if (!actor || failureJournaled.has(request)) return;
  failureJournaled.add(request);
  if (isJournaled(failure.error)) return;
  const { error, status, code } = failure;
  const message = error instanceof Error ? error.message : String(error);
  const record = failedActionRecord(request, actor, { code, message }, status);
  if (!record) return;
  try {
    await journalAction(parts.reads.db, parts.reads.redactor, parts.ctx.clock.now(), record);
  } catch (failure) {
    parts.ctx.logger.error({ err: failure, action: record.action }, 'failed admin action could not be journaled');
  }
}

/** The admin scope's error answer (problem+json), after journaling a failed action. */
export async function sendProblem(parts: AdminParts, error: unknown, request: FastifyRequest, reply: FastifyReply) {
  const problem = await problemFor(parts.ctx, error, request);
  const code =
    error instanceof PayonceError
      ? error.code
      : (error as Partial<FastifyError> | null)?.validation
        ? 'ADMIN_QUERY_INVALID'
        : problem.status >= 500
          ? 'INTERNAL_ERROR'
          : 'INVALID_REQUEST_BODY';
  await journalFailure(parts, request, { error, status: problem.status, code });
  return sendResponse(reply, problem);
}
