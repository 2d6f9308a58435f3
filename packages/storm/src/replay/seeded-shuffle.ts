/** FNV-1a (32 bit) of the seed text: the PRNG's initial state. */
function hashSeed(seed: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(seed, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/**
 * A copy of `items` in an order fixed by `seed`: Fisher–Yates driven by mulberry32 seeded with the FNV-1a hash
 * of the seed's UTF-8 bytes. The same seed and input always give the same order, on every platform, so a replay
 * run is reproducible from the seed its report prints.
 * @example seededShuffle([1, 2, 3, 4], 'run-42') // same order every time
 */
export function seededShuffle<T>(items: readonly T[], seed: string): T[] {
  let state = hashSeed(seed);
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
