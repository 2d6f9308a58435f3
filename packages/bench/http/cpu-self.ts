/**
 * Summarises a V8 `.cpuprofile` (from `node --cpu-prof`) by self time: the top functions, and the share of each
 * part of the code (payonce's src/http, src/core, src/stores, fastify, node internals, GC, idle). Used for
 * notes/http-adapter.md.
 *   node --import tsx http/cpu-self.ts <file.cpuprofile> [top=25] [--since-ms N]
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, topText = '25'] = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
const sinceIndex = process.argv.indexOf('--since-ms');
const sinceMs = sinceIndex > 0 ? Number(process.argv[sinceIndex + 1]) : 0;
if (!file) throw new Error('usage: cpu-self.ts <file.cpuprofile> [top]');
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));

/** Which part of the process a frame belongs to. */
function partOf(url: string, name: string): string {
  if (name === '(garbage collector)') return 'GC';
  if (name === '(idle)') return 'idle';
  if (name === '(program)') return '(program)';
  const src = /\/src\/([a-z-]+)\//.exec(url);
  if (src && !url.includes('node_modules')) return `payonce src/${src[1]}`;
  const module = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (module) return module[1]!;
  if (url.startsWith('node:')) return 'node internals';
  if (url.includes('/bench/')) return 'bench route';
  return url === '' ? 'native/builtin' : 'other';
}

const self = new Map<number, number>();
let elapsed = 0;
for (let i = 0; i < profile.samples.length; i++) {
  elapsed += profile.timeDeltas[i] ?? 0;
  if (elapsed / 1_000 < sinceMs) continue;
  const id = profile.samples[i]!;
  self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
}
const parts = new Map<string, number>();
const functions = new Map<string, number>();
let busy = 0;
for (const [id, us] of self) {
  const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
  const part = partOf(url, functionName);
  parts.set(part, (parts.get(part) ?? 0) + us);
  if (part !== 'idle') busy += us;
  const short = url.replace(/^.*\/(node_modules|src|bench)\//, '$1/');
  const key = `${functionName || '(anonymous)'} ${short}:${lineNumber + 1}`;
  functions.set(key, (functions.get(key) ?? 0) + us);
}
// Inclusive time: each sample counted once for every distinct function on its stack.
const parent = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
const inclusive = new Map<string, number>();
const keyOf = (node: ProfileNode): string => {
  const { functionName, url, lineNumber } = node.callFrame;
  return `${functionName || '(anonymous)'} ${url.replace(/^.*\/(node_modules|src|bench)\//, '$1/')}:${lineNumber + 1}`;
};
for (const [id, us] of self) {
  const seen = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const key = keyOf(byId.get(at)!);
    if (seen.has(key)) continue;
    seen.add(key);
    inclusive.set(key, (inclusive.get(key) ?? 0) + us);
  }
}
const pct = (us: number) => `${((us / busy) * 100).toFixed(1).padStart(5)}%`;
console.log(`busy (non-idle) ${(busy / 1_000).toFixed(0)} ms; shares of busy time`);
for (const [part, us] of [...parts].sort((a, b) => b[1] - a[1])) {
  if (part !== 'idle') console.log(`${pct(us)}  ${part}`);
}
console.log('\ntop functions by self time');
for (const [key, us] of [...functions].sort((a, b) => b[1] - a[1]).slice(0, Number(topText))) {
  console.log(`${pct(us)}  ${key}`);
}

if (process.argv.includes('--inclusive')) {
  console.log('\ntop functions by inclusive time (payonce and fastify frames)');
  for (const [key, us] of [...inclusive]
    .filter(([key]) => /src\/|fastify\/|bench\//.test(key))
    .sort((a, b) => b[1] - a[1])
    .slice(0, Number(topText))) {
    console.log(`${pct(us)}  ${key}`);
  }
}
