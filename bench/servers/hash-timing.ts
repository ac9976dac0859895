/**
 * The password hash alone, timed inside a server's own process (pinned like its requests): `count` checks of the
 * stored hash from `concurrency` loops, with the process's CPU time (every thread: the hashes run on libuv's pool)
 * and each call's wall time.
 */
export interface HashTiming {
  count: number;
  concurrency: number;
  /** CPU time of the whole process over the calls, in microseconds. */
  cpuMicros: number;
  wallMs: number;
  /** Wall time of each call, in milliseconds. */
  callMs: number[];
}

export async function timeHashes(check: () => Promise<unknown>, count: number, concurrency: number): Promise<HashTiming> {
  const callMs: number[] = [];
  let left = count;
  const cpu = process.cpuUsage();
  const begin = performance.now();
  await Promise.all(
    Array.from({ length: Math.max(1, concurrency) }, async () => {
      while (left-- > 0) {
        const t0 = performance.now();
        await check();
        callMs.push(performance.now() - t0);
      }
    }),
  );
  const wallMs = performance.now() - begin;
  const used = process.cpuUsage(cpu);
  return { count: callMs.length, concurrency, cpuMicros: used.user + used.system, wallMs, callMs };
}
