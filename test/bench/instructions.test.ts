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
  it('counts the window only, in proportion to its requests, with the route its own work', { timeout: 600_000 }, async () => {
    server = await startServer('counted', script, { env: { BENCH_PIN: '0' } });
    await expect(server.countInstructions(async () => undefined, 'test')).rejects.toThrow(/not running under callgrind/);
    expect(server.info['execArgv']).not.toContain('--no-concurrent-recompilation');
    await server.restart(true);
    // Counted, V8 compiles on the main thread: tier-up ends after as many requests whatever else runs.
    expect(server.info['execArgv']).toContain('--no-concurrent-recompilation');
    // Warm-up: most of V8's tier-up and the first connections' work are not in the counts that follow.
    await count('/json', 2000);
    const small = await count('/json', 300);
    const large = await count('/json', 900);
    // An idle window counts (almost) nothing: the counts are the requests' work, not the time passed.
    const idle = await server.countInstructions(() => new Promise((resolve) => setTimeout(resolve, 500)), 'test');
    const work = await count('/work', 300);
    const seen = `small ${small}, large ${large}, idle ${idle}, work ${work}`;

    expect(small / 300, seen).toBeGreaterThan(20_000);
    expect(small / 300, seen).toBeLessThan(5_000_000);
    // Three times the requests, about three times the instructions (a GC or a late compile in one window moves it).
    expect(large / small, seen).toBeGreaterThan(2);
    expect(large / small, seen).toBeLessThan(4);
    expect(idle, seen).toBeLessThan(small / 10);
    // The loop's 200,000 additions take at least one instruction each.
    expect((work - small) / 300, seen).toBeGreaterThan(200_000);
    await server.restart(false);
    await expect(server.countInstructions(async () => undefined, 'test')).rejects.toThrow(/not running under callgrind/);
  });
});
