import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's CPU times (USER_HZ, 100 on Linux): one tick is 10 000 µs. */
const TICK_US = 10_000;

/**
 * CPU time used so far by a process or thread, in µs, user and system, read from its `/proc/…/stat` file
 * (`/proc/PID/stat` or `/proc/PID/task/TID/stat`): fields 14 and 15 (utime, stime), counted after the command
 * name's closing parenthesis because the name itself may contain spaces. Linux only.
 */
export function cpuOfStatFile(path: string): { user: number; system: number } {
  const stat = readFileSync(path, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: Number(fields[11]) * TICK_US, system: Number(fields[12]) * TICK_US };
}
