/**
 * Prints the self time of `.cpuprofile` files by module group and by function (cpu-profile.ts), with the CPU ms
 * per operation when the operation count is given: `npx tsx service/profile-summary.ts FILE[:OPS] …`.
 */
import { profileBreakdown } from './cpu-profile.js';

for (const arg of process.argv.slice(2)) {
  const [file, ops] = arg.split(':') as [string, string | undefined];
  const profile = await profileBreakdown(file);
  const idle = profile.byGroup.find((g) => g.name === '(idle)')?.ms ?? 0;
  const busy = profile.totalMs - idle;
  const per = ops ? `, ${(busy / Number(ops)).toFixed(2)} ms CPU per operation (${ops})` : '';
  console.log(`${file}: ${profile.totalMs.toFixed(0)} ms sampled, ${busy.toFixed(0)} ms busy${per}`);
  for (const g of profile.byGroup.slice(0, 14)) {
    console.log(`  ${(g.share * 100).toFixed(1).padStart(5)}%  ${g.ms.toFixed(0).padStart(6)} ms  ${g.name}`);
  }
  for (const f of profile.byFunction.slice(0, 12)) {
    console.log(`  ${(f.share * 100).toFixed(1).padStart(5)}%  ${f.ms.toFixed(0).padStart(6)} ms  ${f.name}`);
  }
}
