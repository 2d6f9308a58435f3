// Loaded with `node --import`: makes the operator console's packages unresolvable, as in a broken install.
import { register } from 'node:module';

const hooks = `
const HIDDEN = new Set(['@fastify/swagger', '@fastify/static', '@fastify/cookie']);
export async function resolve(specifier, context, next) {
  if (HIDDEN.has(specifier)) {
    const error = new Error("Cannot find package '" + specifier + "' imported from " + context.parentURL);
    error.code = 'ERR_MODULE_NOT_FOUND';
    throw error;
  }
  return next(specifier, context);
}`;

register(`data:text/javascript,${encodeURIComponent(hooks)}`);
