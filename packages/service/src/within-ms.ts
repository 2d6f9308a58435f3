/**
 * Settles as `work` does, or rejects with `Error('<what> timed out after <ms> ms')` once `ms` milliseconds have
 * passed first; the timer is cleared either way. `work` itself is not cancelled (a late result is dropped).
 */
export async function withinMs<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
