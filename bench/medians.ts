/**
 * Medians over several bench runs: `npx tsx bench/medians.ts run1.json run2.json run3.json` (copies of
 * bench/results/latest.json). For every row that has ours' CPU per request beside another side's, prints the median
 * of each run's ratio (a ratio is taken within its run, whose slices alternate, never across runs), with the range,
 * and the median requests per second; and the bare Express figures, which say how quiet each run was.
 */
import { readFile } from 'node:fs/promises';
import { median } from './lib/stats.js';

interface Side {
  perSecond: number;
  cpuMicros?: number;
}

interface ResultRow {
  case: string;
  unit: string;
  ours?: Side;
  authjs?: Side;
  bare?: Side;
}

const files = process.argv.slice(2);
if (files.length === 0) throw new Error('usage: npx tsx bench/medians.ts <latest.json copy> …');
const runs = await Promise.all(files.map(async (file) => JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>));

/** Every table of a run (rows, passwordRows, apiKeyRows, …), by the case of each row. */
function rowsOf(run: Record<string, unknown>): Map<string, ResultRow> {
  const found = new Map<string, ResultRow>();
  for (const [key, value] of Object.entries(run)) {
    if (!key.endsWith('ows') || !Array.isArray(value)) continue;
    for (const row of value as ResultRow[]) if (typeof row.case === 'string') found.set(`${key}: ${row.case}`, row);
  }
  return found;
}

const tables = runs.map(rowsOf);
const cases = [...new Set(tables.flatMap((table) => [...table.keys()]))];
const shown = (values: number[], digits: number): string =>
  values.length === 0 ? '' : `${median(values).toFixed(digits)} (${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)})`;

const lines = ['| case | runs | ours ÷ bare (or floor), CPU per request | ours ÷ other, CPU | ours req/s | bare (or floor) req/s |', '|---|---|---|---|---|---|'];
for (const name of cases) {
  const present = tables.map((table) => table.get(name)).filter((row): row is ResultRow => row !== undefined);
  const cpu = (row: ResultRow, side: 'authjs' | 'bare'): number | undefined => {
    const ours = row.ours?.cpuMicros;
    const other = row[side]?.cpuMicros;
    return ours !== undefined && other !== undefined && other > 0 ? ours / other : undefined;
  };
  const vsBare = present.map((row) => cpu(row, 'bare')).filter((value): value is number => value !== undefined);
  const vsOther = present.map((row) => cpu(row, 'authjs')).filter((value): value is number => value !== undefined);
  if (vsBare.length === 0 && vsOther.length === 0) continue;
  const oursRate = present.map((row) => row.ours?.perSecond).filter((value): value is number => value !== undefined);
  const bareRate = present.map((row) => row.bare?.perSecond).filter((value): value is number => value !== undefined);
  lines.push(`| ${name} | ${present.length} | ${shown(vsBare, 2)} | ${shown(vsOther, 2)} | ${shown(oursRate, 0)} | ${shown(bareRate, 0)} |`);
}
process.stdout.write(`${lines.join('\n')}\n`);
