/**
 * docs/benchmarks.md lists the bench's settings and groups: each one the bench reads is listed, and each one listed is
 * read by the bench.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = new URL('..', import.meta.url).pathname;
const docs = readFileSync(join(root, 'docs/benchmarks.md'), 'utf8');
const benchSources = ['bench/run.ts', ...readdirSync(join(root, 'bench/lib')).map((name) => `bench/lib/${name}`)].map((path) => readFileSync(join(root, path), 'utf8'));

/** The settings the bench process reads (the servers' own variables, BENCH_PORT and the like, are set by the bench). */
const read = new Set(benchSources.flatMap((source) => [...source.matchAll(/(?:numberSetting\(|process\.env\[)'(BENCH_[A-Z_]+)'/g)].map((match) => match[1]!)));

describe('docs/benchmarks.md', () => {
  it('lists every setting the bench reads, and only those', () => {
    expect(read.size).toBeGreaterThan(20);
    const listed = new Set([...docs.matchAll(/`(BENCH_[A-Z_]+)/g)].map((match) => match[1]!));
    expect([...read].filter((name) => !listed.has(name))).toEqual([]);
    expect([...listed].filter((name) => !read.has(name))).toEqual([]);
  });

  it("lists the bench's groups as BENCH_ONLY takes them", () => {
    const run = benchSources[0]!;
    const groups = /const groups = \[([^\]]+)\] as const/.exec(run)?.[1]?.match(/'([a-z-]+)'/g)?.map((quoted) => quoted.slice(1, -1));
    const documented = /`BENCH_ONLY` \(any of\s+`([a-z,-]+)`\)/.exec(docs)?.[1]?.split(',');
    expect(groups).toBeDefined();
    expect(documented).toEqual(groups);
  });
});
