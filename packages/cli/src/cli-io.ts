/** Where a CLI command writes: one line per call (the newline is added). Injected so tests capture output. */
export interface CliIo {
  out(line: string): void;
  err(line: string): void;
}

/** The process's stdout and stderr. */
export const processIo: CliIo = Object.freeze({
  out: (line: string) => {
    process.stdout.write(`${line}\n`);
  },
  err: (line: string) => {
    process.stderr.write(`${line}\n`);
  },
});
