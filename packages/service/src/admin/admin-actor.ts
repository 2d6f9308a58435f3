import type { FastifyRequest } from 'fastify';
import { ServiceError } from '../service-error.js';
import type { AdminActor } from './admin-audit.js';
import { type AdminSession, type AdminSessions, CSRF_HEADER, operatorName, SESSION_COOKIE } from './admin-auth.js';

const actors = new WeakMap<FastifyRequest, AdminActor>();
const sessionsOf = new WeakMap<FastifyRequest, AdminSession>();

/**
 * The actor the auth hook found for this request.
 * @throws {ServiceError} `ADMIN_TOKEN_INVALID` when the request was not authenticated.
 */
export function actorOf(request: FastifyRequest): AdminActor {
  const actor = actors.get(request);
  if (!actor) throw new ServiceError('ADMIN_TOKEN_INVALID', 'log in or send Authorization: Bearer <token>');
  return actor;
}

/**
 * Authenticates one admin request: `Authorization: Bearer <token>` (compared in constant time; the operator is
 * `X-Operator` or `operator`), else the console's session cookie, whose POSTs must carry the session's
 * `X-CSRF-Token`. Wrong bearer tokens are throttled per client address (`request.ip`).
 * @throws {ServiceError} `ADMIN_TOKEN_INVALID` (401), `ADMIN_CSRF_INVALID` (403), `ADMIN_AUTH_THROTTLED` (429).
 */
export function authenticate(sessions: AdminSessions, request: FastifyRequest): AdminActor {
  const header = request.headers.authorization;
  if (header !== undefined) {
    const given = /^Bearer\s+(.+)$/i.exec(header)?.[1]?.trim() ?? '';
    if (!sessions.checkTokenFrom(request.ip, given))
      throw new ServiceError('ADMIN_TOKEN_INVALID', 'send Authorization: Bearer <token>');
    const operator = request.headers['x-operator'];
    return { name: operatorName(Array.isArray(operator) ? undefined : operator), via: 'token' };
  }
  const session = sessions.find(request.cookies?.[SESSION_COOKIE]);
  if (!session)
    throw new ServiceError('ADMIN_TOKEN_INVALID', 'log in at /console or send Authorization: Bearer <token>');
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    const csrf = request.headers[CSRF_HEADER];
    if (!sessions.checkCsrf(session, typeof csrf === 'string' ? csrf : undefined)) {
      throw new ServiceError('ADMIN_CSRF_INVALID', 'send the session CSRF token in X-CSRF-Token');
    }
  }
  sessionsOf.set(request, session);
  return { name: session.operator, via: 'session' };
}

/** The actor of an authenticated request, or `undefined` before (or without) authentication. */
export function actorIfAny(request: FastifyRequest): AdminActor | undefined {
  return actors.get(request);
}

/** The console session of a request authenticated by its cookie, else `undefined`. */
export function sessionOf(request: FastifyRequest): AdminSession | undefined {
  return sessionsOf.get(request);
}

/** Authenticates `request` (see {@link authenticate}) and remembers its actor for {@link actorOf}. */
export function admitRequest(sessions: AdminSessions, request: FastifyRequest): void {
  actors.set(request, authenticate(sessions, request));
}
