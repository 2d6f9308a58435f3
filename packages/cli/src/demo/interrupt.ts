const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/**
 * Until the returned `release()` is called, a SIGINT (Ctrl-C) or SIGTERM runs `cleanup` (stop the service child
 * and the sandbox) and then ends the process the way that signal would have without a handler. A second signal
 * during cleanup ends it at once.
 */
export function onInterrupt(cleanup: () => Promise<void>): () => void {
  const handler = (signal: NodeJS.Signals) => {
    release();
    const again = () => process.kill(process.pid, signal);
    for (const name of SIGNALS) process.once(name, again);
    void cleanup()
      .catch(() => undefined)
      .finally(() => {
        for (const name of SIGNALS) process.off(name, again);
        process.kill(process.pid, signal);
      });
  };
  const release = () => {
    for (const name of SIGNALS) process.off(name, handler);
  };
  for (const name of SIGNALS) process.on(name, handler);
  return release;
}

/**
 * Resolves with the signal's name on the next SIGINT or SIGTERM, or with `'aborted'` when `abort` fires (tests);
 * removes its handlers either way. Used by `payonce demo --serve` to run until Ctrl-C.
 */
export function waitForStop(abort?: AbortSignal): Promise<NodeJS.Signals | 'aborted'> {
  return new Promise((resolve) => {
    const done = (why: NodeJS.Signals | 'aborted') => {
      for (const name of SIGNALS) process.off(name, handler);
      abort?.removeEventListener('abort', onAbort);
      resolve(why);
    };
    const handler = (signal: NodeJS.Signals) => done(signal);
    const onAbort = () => done('aborted');
    if (abort?.aborted) return done('aborted');
    for (const name of SIGNALS) process.on(name, handler);
    abort?.addEventListener('abort', onAbort, { once: true });
  });
}
