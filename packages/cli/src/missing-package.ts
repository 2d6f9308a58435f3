/** Versions to suggest for the optional peer dependencies a `payonce` command may load. */
const PEER_RANGES: Readonly<Record<string, string>> = {
  fastify: 'fastify@5',
  'better-sqlite3': 'better-sqlite3@12',
  pg: 'pg@8',
  mysql2: 'mysql2@3',
  ioredis: 'ioredis@6',
};

/**
 * A command needs an optional peer dependency that is not installed (e.g. `payonce serve` needs `fastify`). The
 * message names the package and the `npm install` line; `payonce` prints it and exits 1.
 */
export class MissingPackage extends Error {
  /** The package that could not be loaded. */
  readonly packageName: string;
  constructor(command: string, packageName: string) {
    super(
      `payonce ${command} needs the package "${packageName}": npm install ${PEER_RANGES[packageName] ?? packageName}`,
    );
    this.name = 'MissingPackage';
    this.packageName = packageName;
  }
}

/**
 * Runs `load` (a dynamic `import()` of the command's implementation) and turns Node's "Cannot find package 'x'"
 * (`ERR_MODULE_NOT_FOUND` for a bare specifier) into {@link MissingPackage}; any other error is rethrown as is.
 */
export async function loadCommand<T>(command: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    const name = error instanceof Error ? /Cannot find package '([^']+)'/.exec(error.message)?.[1] : undefined;
    if (code === 'ERR_MODULE_NOT_FOUND' && name !== undefined) throw new MissingPackage(command, name);
    throw error;
  }
}
