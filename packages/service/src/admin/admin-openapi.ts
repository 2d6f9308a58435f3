import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import { SESSION_COOKIE } from './admin-auth.js';

/** The `@fastify/swagger` options of the admin API: OpenAPI 3.0.3, bearer token or console session cookie. */
export const ADMIN_OPENAPI: FastifyDynamicSwaggerOptions = {
  openapi: {
    openapi: '3.0.3',
    info: {
      title: 'payonce admin API',
      version: '1',
      description: 'Operator console API of the payonce reference service (docs/console.md).',
    },
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'PAYONCE_ADMIN_TOKEN' },
        sessionCookie: { type: 'apiKey', in: 'cookie', name: SESSION_COOKIE },
      },
    },
    security: [{ bearerAuth: [] }, { sessionCookie: [] }],
  },
};

/** Adds the headers no schema can express to the generated OpenAPI document: Idempotency-Key on every POST. */
export function withActionHeaders(document: Record<string, unknown>): Record<string, unknown> {
  const copy = JSON.parse(JSON.stringify(document)) as {
    paths?: Record<string, Record<string, { parameters?: unknown[] }>>;
  };
  for (const operations of Object.values(copy.paths ?? {})) {
    const post = operations.post;
    if (!post) continue;
    post.parameters = [
      ...(post.parameters ?? []),
      {
        name: 'Idempotency-Key',
        in: 'header',
        required: true,
        description: 'a fresh key per action; a retry with the same key and body replays the first answer',
        schema: { type: 'string', maxLength: 255 },
      },
      {
        name: 'X-CSRF-Token',
        in: 'header',
        required: false,
        description: 'required with the console session cookie (from GET /admin/api/session); not with a bearer token',
        schema: { type: 'string' },
      },
    ];
  }
  return copy as Record<string, unknown>;
}
