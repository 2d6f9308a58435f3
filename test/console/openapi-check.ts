import { Ajv } from 'ajv';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
const LOCATIONS = ['query', 'header', 'path', 'cookie'];

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The rules of the OpenAPI 3.0.x specification a document can be checked against offline (the official JSON
 * Schema is not available without network): required top-level fields, path keys, operation and response
 * objects, parameter objects (name, `in`, required path parameters for every `{template}`), request bodies,
 * unique operation ids, security requirements naming declared schemes, and every schema compiling as JSON Schema.
 * Returns the violations (empty when valid).
 * @see https://spec.openapis.org/oas/v3.0.3
 */
export function openApiViolations(doc: unknown): string[] {
  const problems: string[] = [];
  const fail = (where: string, what: string) => problems.push(`${where}: ${what}`);
  if (!isObject(doc)) return ['document: not an object'];
  if (typeof doc.openapi !== 'string' || !/^3\.0\.\d+$/.test(doc.openapi)) fail('openapi', 'must be 3.0.x');
  const info = doc.info;
  if (!isObject(info) || typeof info.title !== 'string' || typeof info.version !== 'string') {
    fail('info', 'needs title and version strings');
  }
  if (!isObject(doc.paths)) return [...problems, 'paths: must be an object'];
  const ajv = new Ajv({ strict: false, allErrors: true });
  const schemes =
    isObject(doc.components) && isObject(doc.components.securitySchemes) ? doc.components.securitySchemes : {};
  for (const [name, scheme] of Object.entries(schemes)) {
    const ok =
      isObject(scheme) &&
      ((scheme.type === 'http' && typeof scheme.scheme === 'string') ||
        (scheme.type === 'apiKey' &&
          typeof scheme.name === 'string' &&
          ['query', 'header', 'cookie'].includes(String(scheme.in))) ||
        scheme.type === 'oauth2' ||
        scheme.type === 'openIdConnect');
    if (!ok) fail(`components.securitySchemes.${name}`, 'not a valid security scheme');
  }
  const checkSecurity = (where: string, security: unknown) => {
    if (security === undefined) return;
    if (!Array.isArray(security)) return fail(where, 'security must be an array');
    for (const requirement of security) {
      if (!isObject(requirement)) fail(where, 'security requirement must be an object');
      else
        for (const name of Object.keys(requirement))
          if (!(name in schemes)) fail(where, `unknown security scheme ${name}`);
    }
  };
  checkSecurity('security', doc.security);
  const compile = (where: string, schema: unknown) => {
    if (!isObject(schema)) return fail(where, 'schema must be an object');
    try {
      ajv.compile(schema);
    } catch (error) {
      fail(where, `schema does not compile: ${(error as Error).message}`);
    }
  };
  const operationIds = new Set<string>();
  for (const [path, item] of Object.entries(doc.paths)) {
    if (!path.startsWith('/')) fail(path, 'path must start with /');
    if (!isObject(item)) {
      fail(path, 'path item must be an object');
      continue;
    }
    const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
    for (const method of METHODS) {
      const op = item[method];
      if (op === undefined) continue;
      const where = `${method.toUpperCase()} ${path}`;
      if (!isObject(op)) {
        fail(where, 'operation must be an object');
        continue;
      }
      if (typeof op.operationId === 'string') {
        if (operationIds.has(op.operationId)) fail(where, `duplicate operationId ${op.operationId}`);
        operationIds.add(op.operationId);
      }
      const parameters = Array.isArray(op.parameters) ? op.parameters : [];
      const seen = new Set<string>();
      for (const parameter of parameters) {
        if (!isObject(parameter) || typeof parameter.name !== 'string' || !LOCATIONS.includes(String(parameter.in))) {
          fail(where, `bad parameter ${JSON.stringify(parameter)}`);
          continue;
        }
        const id = `${parameter.in}:${parameter.name.toLowerCase()}`;
        if (seen.has(id)) fail(where, `duplicate parameter ${id}`);
        seen.add(id);
        if (parameter.in === 'path' && parameter.required !== true)
          fail(where, `path parameter ${parameter.name} must be required`);
        if (parameter.schema === undefined && parameter.content === undefined)
          fail(where, `parameter ${parameter.name} needs a schema`);
        if (parameter.schema !== undefined) compile(`${where} parameter ${parameter.name}`, parameter.schema);
      }
      for (const name of templated) {
        if (!parameters.some((p) => isObject(p) && p.in === 'path' && p.name === name))
          fail(where, `no path parameter for {${name}}`);
      }
      if (op.requestBody !== undefined) {
        const body = op.requestBody;
        if (!isObject(body) || !isObject(body.content)) fail(where, 'requestBody needs content');
        else
          for (const [type, media] of Object.entries(body.content))
            if (isObject(media) && media.schema) compile(`${where} body ${type}`, media.schema);
      }
      if (!isObject(op.responses) || Object.keys(op.responses).length === 0) {
        fail(where, 'needs at least one response');
        continue;
      }
      for (const [status, response] of Object.entries(op.responses)) {
        if (!/^([1-5]\d\d|[1-5]XX|default)$/.test(status)) fail(where, `bad response key ${status}`);
        if (!isObject(response) || typeof response.description !== 'string')
          fail(where, `response ${status} needs a description`);
        else if (isObject(response.content)) {
          for (const [type, media] of Object.entries(response.content))
            if (isObject(media) && media.schema) compile(`${where} ${status} ${type}`, media.schema);
        }
      }
      checkSecurity(where, op.security);
    }
  }
  return problems;
}
