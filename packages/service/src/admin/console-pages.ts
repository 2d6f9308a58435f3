import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyCookie from '@fastify/cookie';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { databaseReachable } from '../database-reachable.js';
import { failureAnswer, sendResponse } from '../http-edge.js';
import type { ServiceContext } from '../service-context.js';
import { ServiceError } from '../service-error.js';
import { authenticate } from './admin-actor.js';
import { type AdminSessions, operatorName, SESSION_COOKIE } from './admin-auth.js';
import { adminProblemOf } from './admin-problem.js';

/**
 * Where `npm run build` puts the console (`dist/console`: `index.html`, `login.html`, `assets/`), found from this
 * module whether it runs from `dist/` or from `src/` (tests).
 */
export function consoleDirectory(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (existsSync(join(dir, 'package.json'))) return join(dir, 'dist', 'console');
    dir = dirname(dir);
  }
  return join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'console');
}

/** Headers of every console page: no caching, no framing, no referrer, scripts and data from this origin only. */
const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
} as const;

/** True when the request came over TLS, or a trusted proxy's `X-Forwarded-Proto` says so (any case: RFC 3986 §3.1). */
function isHttps(request: FastifyRequest): boolean {
  return request.protocol.toLowerCase() === 'https';
}

/**
 * Registers the web console (docs/console.md) on the service's app: `GET /console/…` answers the console page with
 * a live session and the login page without one (both 200, `no-store`); `/console/assets/*` are the built static files
 * (`@fastify/static`, no data in them); `POST /console/login` `{ token, operator }` checks the admin token in
 * constant time and sets the session cookie (`HttpOnly; SameSite=Strict; Path=/`, `Secure` over HTTPS), never
 * echoing the token; `POST /console/logout` (CSRF-checked) ends the session.
 */
export async function registerConsolePages(
  app: FastifyInstance,
  ctx: ServiceContext,
  sessions: AdminSessions,
): Promise<void> {
  const root = consoleDirectory();
  const page = (name: string) => {
    const file = join(root, name);
    return existsSync(file) ? readFileSync(file, 'utf8') : null;
  };
  const appPage = page('index.html');
  const loginPage = page('login.html');
  await app.register(async (scope) => {
    await scope.register(fastifyCookie);
    if (existsSync(join(root, 'assets'))) {
      await scope.register(fastifyStatic, {
        root: join(root, 'assets'),
        prefix: '/console/assets/',
        decorateReply: false,
        index: false,
        cacheControl: true,
        maxAge: 3_600_000,
      });
    }
    scope.setErrorHandler(async (error, request, reply) => {
      const problem = adminProblemOf(error);
      if (problem) return sendResponse(reply, problem);
      const where = { url: request.routeOptions.url ?? request.url, what: 'console request failed' };
      return sendResponse(reply, await failureAnswer(error, () => databaseReachable(ctx), ctx.logger, where));
    });
    const show = (request: FastifyRequest, reply: FastifyReply) => {
      if (appPage === null || loginPage === null) {
        return reply.code(503).type('text/plain; charset=utf-8').send('the console is not built: run npm run build\n');
      }
      const session = sessions.find(request.cookies[SESSION_COOKIE]);
      // 200 either way: a browser shows the login page (no data, no token) without logging a failed load.
      return reply
        .code(200)
        .headers(PAGE_HEADERS)
        .send(session ? appPage : loginPage);
    };
    scope.get('/console', (request, reply) => show(request, reply));
    scope.get('/console/', (request, reply) => show(request, reply));
    scope.get('/console/login', (request, reply) => show(request, reply));

    scope.post<{ Body: { token?: unknown; operator?: unknown } }>('/console/login', async (request, reply) => {
      const body = request.body;
      const token = body && typeof body === 'object' && typeof body.token === 'string' ? body.token : '';
      if (!sessions.checkTokenFrom(request.ip, token)) {
        ctx.logger.warn({ ip: request.ip }, 'console login refused');
        throw new ServiceError('ADMIN_TOKEN_INVALID', 'wrong admin token');
      }
      const operator = operatorName(body?.operator);
      const session = sessions.open(operator);
      ctx.logger.info({ operator }, 'console login');
      reply.setCookie(SESSION_COOKIE, session.id, {
        httpOnly: true,
        sameSite: 'strict',
        secure: isHttps(request),
        path: '/',
        maxAge: Math.floor(sessions.lifetimeMs / 1000),
      });
      return reply.code(200).header('cache-control', 'no-store').send({ operator, expiresAtMs: session.expiresAtMs });
    });
    scope.post('/console/logout', async (request, reply) => {
      const actor = authenticate(sessions, request);
      const id = request.cookies[SESSION_COOKIE];
      if (id !== undefined) sessions.close(id);
      ctx.logger.info({ operator: actor.name }, 'console logout');
      reply.clearCookie(SESSION_COOKIE, { path: '/', httpOnly: true, sameSite: 'strict', secure: isHttps(request) });
      return reply.code(204).send();
    });
  });
}
