/** Percentiles and medians of the bench's own samples (milliseconds, kept as floats). */

/** A growable list of float samples. */
export class Samples {
  private values = new Float64Array(1024);
  count = 0;

  add(value: number): void {
    if (this.count === this.values.length) {
      const bigger = new Float64Array(this.values.length * 2);
      bigger.set(this.values);
      this.values = bigger;
    }
    this.values[this.count++] = value;
  }

  addAll(other: Samples): void {
    for (let index = 0; index < other.count; index++) this.add(other.values[index]!);
  }

  /** The p-th percentile (0–100), nearest rank. */
  percentile(p: number): number {
    return percentile(this.values.subarray(0, this.count), p);
  }
}

/** Nearest-rank percentile of `values` (sorted here, on a copy). */
export function percentile(values: ArrayLike<number>, p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = Float64Array.from(values).sort();
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1]!;
}

/** The median. */
export function median(values: ArrayLike<number>): number {
  return percentile(values, 50);
}
