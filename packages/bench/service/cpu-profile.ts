/**
 * Reads a V8 `.cpuprofile` (`node --cpu-prof`) and sums self time by module group — our folders under `src/`, each
 * package under `node_modules/`, Node's own code, and V8's pseudo-frames (GC, idle, program) — and by function.
 */
import { readFile } from 'node:fs/promises';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** Self time of one group or function, ms, and its share of the sampled time. */
export interface SelfTime {
  readonly name: string;
  readonly ms: number;
  readonly share: number;
}

/** Self time by group and by function (largest first), and the sampled total, ms. */
export interface ProfileBreakdown {
  readonly totalMs: number;
  readonly byGroup: readonly SelfTime[];
  readonly byFunction: readonly SelfTime[];
}

/** The group a frame's script belongs to: `src/<folder>`, a package name, `node`, or a V8 pseudo-frame. */
export function groupOf(url: string, functionName: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  const ours = /\/src\/([^/]+)\//.exec(url);
  if (ours && !url.includes('/node_modules/')) return `src/${ours[1]}`;
  const pkg = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url.slice(url.lastIndexOf('/node_modules/')));
  if (pkg) return pkg[1]!;
  if (url.startsWith('node:')) return 'node';
  if (/\/bench\//.test(url)) return 'bench';
  return url;
}

function ranked(totals: Map<string, number>, totalMs: number): SelfTime[] {
  return [...totals.entries()]
    .map(([name, ms]) => ({ name, ms, share: totalMs > 0 ? ms / totalMs : 0 }))
    .sort((a, b) => b.ms - a.ms);
}

/** Sums the self time of every sample of the profile at `path` (µs deltas → ms). */
export async function profileBreakdown(path: string): Promise<ProfileBreakdown> {
  const profile = JSON.parse(await readFile(path, 'utf8')) as CpuProfile;
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const groups = new Map<string, number>();
  const functions = new Map<string, number>();
  let totalMs = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const node = nodes.get(profile.samples[i]!);
    const ms = (profile.timeDeltas[i] ?? 0) / 1_000;
    if (!node) continue;
    totalMs += ms;
    const { url, functionName, lineNumber } = node.callFrame;
    const group = groupOf(url, functionName);
    groups.set(group, (groups.get(group) ?? 0) + ms);
    const file = url.slice(url.lastIndexOf('/') + 1);
    const fn = `${functionName || '(anonymous)'} ${file ? `${file}:${lineNumber + 1}` : ''}`.trim();
    functions.set(fn, (functions.get(fn) ?? 0) + ms);
  }
  return { totalMs, byGroup: ranked(groups, totalMs), byFunction: ranked(functions, totalMs) };
}
