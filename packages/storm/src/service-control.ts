import { StormHttp } from './storm-http.js';

/**
 * How scenario 12 crashes the service: kill it hard (no graceful shutdown, as a power cut or OOM kill would) and
 * return once a NEW process answers. Implemented by {@link pidKillControl}, or by whoever runs the service (a
 * container runtime, a test harness).
 */
export interface ServiceControl {
  /**
   * Kills the running service process and waits until a restarted one answers `GET /healthz`.
   * @returns the pid that was killed and the pid that answers now (they differ).
   * @throws {Error} the service could not be killed, or no new process answered before the deadline.
   * With several replicas, `replica` (an index into the storm's replica list) chooses which one; without it a
   * replica chosen at random (see {@link replicaKillControl}). A single-service control ignores it.
   */
  crashAndRestart(replica?: number): Promise<{ oldPid: number; newPid: number; replica?: number }>;
}

/** Options of {@link pidKillControl}. */
export interface PidKillOptions {
  /** How long to wait for a restarted process to answer, ms. @default 30_000 */
  readonly restartTimeoutMs?: number;
  /** Pause between `/healthz` polls, ms. @default 50 */
  readonly pollMs?: number;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

async function pidOf(http: StormHttp, target: string): Promise<number | null> {
  try {
    const answer = await http.send({ method: 'GET', url: `${target}/healthz` });
    const pid = (answer.json as { pid?: unknown } | null)?.pid;
    return answer.status === 200 && typeof pid === 'number' && Number.isSafeInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/**
 * The default {@link ServiceControl}: reads `pid` from the service's `GET /healthz`, sends it `SIGKILL` (only for a
 * loopback `target`: the process must be on this machine), then polls `/healthz` until a DIFFERENT pid answers —
 * which needs a supervisor (systemd, a container runtime, the demo's) that restarts the service.
 * @throws {Error} the target is not loopback, `/healthz` gives no pid or this very process's pid, the kill fails,
 * or no restarted process
 * answered within `restartTimeoutMs` (the message says a supervisor is needed).
 * @see docs/design.md §9 scenario 12; docs/service.md `GET /healthz`.
 */
export function pidKillControl(target: string, options: PidKillOptions = {}): ServiceControl {
  const restartTimeoutMs = options.restartTimeoutMs ?? 30_000;
  const pollMs = options.pollMs ?? 50;
  return {
    async crashAndRestart() {
      const host = new URL(target).hostname;
      if (!LOOPBACK.has(host)) {
        throw new Error(`cannot kill the service at ${target}: SIGKILL by pid works only for a loopback target`);
      }
      const http = new StormHttp(Math.min(5_000, restartTimeoutMs));
      try {
        const oldPid = await pidOf(http, target);
        if (oldPid === null) throw new Error(`${target}/healthz gave no pid to kill`);
        if (oldPid === process.pid) {
          throw new Error('the service runs inside this process; it cannot be SIGKILLed (pass a serviceControl)');
        }
        process.kill(oldPid, 'SIGKILL');
        const deadline = Date.now() + restartTimeoutMs;
        while (Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, pollMs));
          const newPid = await pidOf(http, target);
          if (newPid !== null && newPid !== oldPid) return { oldPid, newPid };
        }
        throw new Error(
          `killed pid ${oldPid}, but no restarted service answered ${target}/healthz within ${restartTimeoutMs} ms ` +
            '(run the service under a supervisor that restarts it, e.g. payonce demo, systemd or a container runtime)',
        );
      } finally {
        await http.close();
      }
    },
  };
}

/**
 * The {@link ServiceControl} of a storm against several replicas (base URLs of `payonce serve` processes on one
 * database, each under its own supervisor): `crashAndRestart()` SIGKILLs a replica chosen at random (or the one
 * asked for) by its `/healthz` pid, like {@link pidKillControl} on that replica's URL, and reports its index.
 * @throws {Error} as {@link pidKillControl}, or an index outside the list.
 */
export function replicaKillControl(replicas: readonly string[], options: PidKillOptions = {}): ServiceControl {
  const controls = replicas.map((url) => pidKillControl(url, options));
  return {
    async crashAndRestart(replica?: number) {
      const index = replica ?? Math.floor(Math.random() * controls.length);
      const control = controls[index];
      if (control === undefined) throw new Error(`no replica ${index}: there are ${controls.length}`);
      return { ...(await control.crashAndRestart()), replica: index };
    },
  };
}

/** The index of the replica whose `/healthz` answers `pid`, or `null` (for a lease owner `serve-<pid>-…`). */
export async function replicaOfPid(replicas: readonly string[], pid: number): Promise<number | null> {
  const http = new StormHttp(5_000);
  try {
    for (const [index, url] of replicas.entries()) {
      if ((await pidOf(http, url)) === pid) return index;
    }
    return null;
  } finally {
    await http.close();
  }
}
