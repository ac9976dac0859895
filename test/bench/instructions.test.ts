/**
 * The bench's instruction counts (bench/lib/instructions.ts): a server restarted under callgrind counts only what it
 * executes between the zeroing and the dump, in proportion to the requests sent meanwhile, and a route's own work
 * shows in them.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runLoad } from '../../bench/lib/load.js';
import { type BenchServer, startServer } from '../../bench/lib/processes.js';

const script = fileURLToPath(new URL('../fixtures/bench/counted-server.mjs', import.meta.url));
let server: BenchServer | undefined;

afterAll(async () => {
  await server?.stop();
});

async function count(path: string, requests: number): Promise<number> {
  let answered = 0;
  const instructions = await server!.countInstructions(async () => {
    const result = await runLoad({ url: `${server!.url}${path}`, connections: 2, amount: requests });
    expect(result.statuses).toEqual({ '200': requests });
    answered = result.requests;
  }, 'test');
  expect(answered).toBe(requests);
  return instructions;
}

describe('instructions per request under callgrind', () => {
  it('counts the window only, in proportion to its requests, with the route its own work', { timeout: 240_000 }, async () => {
    server = await startServer('counted', script, { env: { BENCH_PIN: '0' } });
    await expect(server.countInstructions(async () => undefined, 'test')).rejects.toThrow(/not running under callgrind/);
    await server.restart(true);
    // Warm-up: most of V8's tier-up and the first connections' work are not in the counts that follow.
    await count('/json', 1000);
    // A window of 400 requests between two of 200: what is left of the tier-up falls on both sides alike.
    const before = await count('/json', 200);
    const large = await count('/json', 400);
    const after = await count('/json', 200);
    // An idle window counts (almost) nothing: the counts are the requests' work, not the time passed.
    const idle = await server.countInstructions(() => new Promise((resolve) => setTimeout(resolve, 500)), 'test');
    const work = await count('/work', 200);

    const perRequest = (before + after) / 400;
    expect(perRequest).toBeGreaterThan(20_000);
    expect(perRequest).toBeLessThan(5_000_000);
    expect(large / (before + after)).toBeGreaterThan(0.85);
    expect(large / (before + after)).toBeLessThan(1.15);
    expect(idle).toBeLessThan(after / 10);
    // The loop's 200,000 additions take at least one instruction each.
    expect(work / 200 - after / 200).toBeGreaterThan(200_000);
    await server.restart(false);
    await expect(server.countInstructions(async () => undefined, 'test')).rejects.toThrow(/not running under callgrind/);
  });
});
