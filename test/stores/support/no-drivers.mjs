// Loaded with `node --import`: makes the optional database drivers unresolvable, as in an install without them.
import { register } from 'node:module';

const hooks = `
const HIDDEN = new Set(['better-sqlite3', 'pg', 'mysql2', 'ioredis']);
export async function resolve(specifier, context, next) {
  if (HIDDEN.has(specifier)) {
    const error = new Error("Cannot find package '" + specifier + "' imported from " + context.parentURL);
    error.code = 'ERR_MODULE_NOT_FOUND';
    throw error;
  }
  return next(specifier, context);
}`;

register(`data:text/javascript,${encodeURIComponent(hooks)}`);
