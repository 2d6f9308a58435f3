// Resolve hook (module.register) of bench/lib/compiled-payonce.mjs: `<root>/src/**/x.ts`, as tsx resolved it, is
// loaded as `<root>/dist/**/x.js`. Every import of a payonce module, from a bench script or from dist itself, lands on
// the same dist URL, so each module is loaded once.
let srcUrl = '';
let distUrl = '';

/** Receives the repository root's file URL from `register`. */
export function initialize(data) {
  srcUrl = new URL('src/', data.root).href;
  distUrl = new URL('dist/', data.root).href;
}

/** Maps a resolved src/ TypeScript module to its compiled copy. */
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (srcUrl === '' || !resolved.url.startsWith(srcUrl) || !resolved.url.endsWith('.ts')) return resolved;
  return { ...resolved, url: `${distUrl}${resolved.url.slice(srcUrl.length, -3)}.js`, format: 'module' };
}
