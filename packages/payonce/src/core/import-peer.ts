import { PayonceError } from './errors.js';

/**
 * An optional peer dependency that an entry point or command needs is not installed (e.g. `payonce/observe` needs
 * `pino`). The message names the package and the `npm install` line. Code `MISSING_PEER_DEPENDENCY`.
 */
export class MissingPeer extends PayonceError<'MISSING_PEER_DEPENDENCY'> {
  readonly code = 'MISSING_PEER_DEPENDENCY';
  /** The package that could not be loaded, e.g. `pino`. */
  readonly packageName: string;
  constructor(packageName: string, neededFor: string) {
    super(`${neededFor} needs the package "${packageName}": npm install ${packageName}`);
    this.packageName = packageName;
  }
}

/**
 * Loads the optional peer dependency `packageName` with a dynamic `import()`. When the package itself is not
 * installed (Node's `ERR_MODULE_NOT_FOUND` naming it) this throws {@link MissingPeer}; any other error while loading
 * (a broken install, an error thrown by the module) is rethrown as is.
 * @param neededFor what needs it, for the message (e.g. "payonce/observe").
 * @throws {MissingPeer} the package is not installed.
 */
export async function importPeer<T>(packageName: string, neededFor: string): Promise<T> {
  try {
    return (await import(packageName)) as T;
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    const missing =
      error instanceof Error ? /Cannot find (?:package|module) '([^']+)'/.exec(error.message)?.[1] : undefined;
    if (code === 'ERR_MODULE_NOT_FOUND' && missing !== undefined && isPackage(missing, packageName)) {
      throw new MissingPeer(packageName, neededFor);
    }
    throw error;
  }
}

/** Node names the missing package by its name or by a path inside `node_modules/<name>`. */
function isPackage(missing: string, packageName: string): boolean {
  return missing === packageName || missing.endsWith(`/node_modules/${packageName}`);
}
