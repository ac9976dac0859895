/**
 * Summarises a V8 CPU profile written by `BENCH_PROFILE=1 npm run bench`: the functions with the most self time,
 * and the share of time spent under each package. Usage: npx tsx bench/profile-summary.ts <file.cpuprofile> [top]
 */
import { readFile } from 'node:fs/promises';

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

const [file, topArgument] = process.argv.slice(2);
if (!file) throw new Error('usage: tsx bench/profile-summary.ts <file.cpuprofile> [top]');
const top = Number(topArgument ?? 30);
const profile = JSON.parse(await readFile(file, 'utf8')) as Profile;

const selfTime = new Map<number, number>();
profile.samples.forEach((id, index) => selfTime.set(id, (selfTime.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0)));
// Idle time is the process waiting for requests: leave it out, so that shares are of the work done.
const idleIds = new Set(profile.nodes.filter((node) => node.callFrame.functionName === '(idle)').map((node) => node.id));
for (const id of idleIds) selfTime.delete(id);
const total = [...selfTime.values()].reduce((sum, value) => sum + value, 0);

function where(url: string): string {
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (match) return match[1]!;
  if (url.includes('/auth/core/') || url.includes('templates/runtime')) return 'our runtime';
  if (url.startsWith('node:')) return 'node internals';
  return url ? url.replace(/^.*\//, '') : '(native/gc/idle)';
}

const byFunction = new Map<string, number>();
const byPlace = new Map<string, number>();
for (const node of profile.nodes) {
  const time = selfTime.get(node.id) ?? 0;
  if (time === 0) continue;
  const { functionName, url, lineNumber } = node.callFrame;
  const key = `${functionName || '(anonymous)'} ${url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\//, '')}:${lineNumber + 1}`;
  byFunction.set(key, (byFunction.get(key) ?? 0) + time);
  byPlace.set(where(url), (byPlace.get(where(url)) ?? 0) + time);
}

const percent = (value: number): string => `${((value / total) * 100).toFixed(1).padStart(5)}%`;
console.log(`${(total / 1e6).toFixed(2)} s of CPU sampled (idle left out)\n\nself time by place:`);
for (const [place, time] of [...byPlace].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`${percent(time)}  ${place}`);
console.log('\nself time by function:');
for (const [name, time] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${percent(time)}  ${name}`);
