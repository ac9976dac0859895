/** countEach (bench/lib/instructions.ts): every item counted once, never more at a time than the machine has cores. */
import { cpus } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { countEach } from '../../bench/lib/instructions.js';

describe('countEach', () => {
  it('runs each item once, at most one per core at a time, and waits for the last', async () => {
    const items = Array.from({ length: cpus().length * 3 + 1 }, (_, index) => index);
    const done: number[] = [];
    let running = 0;
    let most = 0;
    await countEach(items, async (item) => {
      running++;
      most = Math.max(most, running);
      await sleep(5 + (item % 3));
      running--;
      done.push(item);
    });
    expect(done.sort((a, b) => a - b)).toEqual(items);
    expect(most).toBe(Math.min(cpus().length, items.length));
    expect(running).toBe(0);
  });

  it('passes a failure on', async () => {
    const failing = countEach([1, 2, 3], async (item) => {
      if (item === 2) throw new Error('window failed');
    });
    await expect(failing).rejects.toThrow('window failed');
  });
});
