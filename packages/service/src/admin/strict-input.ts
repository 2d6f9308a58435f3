/** The parts of a JSON Schema {@link strictInputViolation} reads. */
export interface StrictSchema {
  readonly type?: string;
  readonly nullable?: boolean;
  readonly properties?: Readonly<Record<string, StrictSchema>>;
  readonly additionalProperties?: unknown;
}

function typeMatches(type: string | undefined, value: unknown): boolean {
  switch (type) {
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'number':
      return typeof value === 'number';
    case 'string':
      return typeof value === 'string';
    default:
      return true;
  }
}

/** How an integer or a boolean query value is written (Ajv would also take `1e400` as an integer, Infinity). */
const QUERY_TEXT: Readonly<Record<string, RegExp>> = { integer: /^\d{1,16}$/, boolean: /^(true|false)$/ };

/**
 * The first way `value` breaks `schema` that fastify's Ajv would hide — an unknown key of a closed object (Ajv's
 * `removeAdditional` drops it) or, with `types`, a value of another JSON type (Ajv's `coerceTypes` turns `null`
 * into `false`, `"1"` into `1`) — as `where/path message`, or `null`. Range, enum and length checks stay Ajv's.
 * @param types check JSON types too (bodies); off for query strings, whose values are all strings.
 */
export function strictInputViolation(
  schema: StrictSchema,
  value: unknown,
  where: string,
  types: boolean,
): string | null {
  if (value === null && schema.nullable === true) return null;
  if (types && !typeMatches(schema.type, value)) return `${where} must be ${schema.type}`;
  const written = QUERY_TEXT[schema.type ?? ''];
  if (!types && written && typeof value === 'string' && !written.test(value)) return `${where} must be ${schema.type}`;
  if (schema.type !== 'object' || typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const properties = schema.properties ?? {};
  for (const [key, item] of Object.entries(value)) {
    const property = Object.hasOwn(properties, key) ? properties[key] : undefined;
    if (property === undefined) {
      if (schema.additionalProperties === false) return `${where}/${key.slice(0, 40)} is not a known field`;
      continue;
    }
    const violation = strictInputViolation(property, item, `${where}/${key}`, types);
    if (violation !== null) return violation;
  }
  return null;
}

/** Visible ASCII and space: every id, key, filter and cursor of the admin API (ids and keys are ASCII everywhere). */
const ADMIN_TEXT = /^[\x20-\x7e]*$/;

/**
 * The first string in `value` (deeply: object values and array items) outside visible ASCII and space — a NUL
 * PostgreSQL cannot store, a character MariaDB's ASCII columns cannot compare — as `where/path message`, or `null`.
 */
export function nonAsciiViolation(value: unknown, where: string): string | null {
  if (typeof value === 'string') return ADMIN_TEXT.test(value) ? null : `${where} must be printable ASCII`;
  if (typeof value !== 'object' || value === null) return null;
  for (const [key, item] of Object.entries(value)) {
    if (!ADMIN_TEXT.test(key)) return `${where} has a key that is not printable ASCII`;
    const violation = nonAsciiViolation(item, `${where}/${key.slice(0, 40)}`);
    if (violation !== null) return violation;
  }
  return null;
}
