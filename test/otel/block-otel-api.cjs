// Preloaded with `node --require` by no-otel-api.test.ts: makes `@opentelemetry/api` unresolvable, as in an
// application that never installed it, while every other package resolves as usual.
const Module = require('node:module');
const resolve = Module._resolveFilename;
Module._resolveFilename = function resolveWithoutOtel(request, ...rest) {
  if (request === '@opentelemetry/api' || request.startsWith('@opentelemetry/api/')) {
    const error = new Error(`Cannot find module '${request}'`);
    error.code = 'MODULE_NOT_FOUND';
    throw error;
  }
  return resolve.call(this, request, ...rest);
};
