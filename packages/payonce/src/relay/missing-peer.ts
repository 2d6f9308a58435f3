/** `payonce/relay needs the package "<name>" (npm install <name>)`, with the import error as `cause`. */
export function missingPeer(name: string, cause: unknown): Error {
  return new Error(`payonce/relay needs the package "${name}": npm install ${name}`, { cause });
}
