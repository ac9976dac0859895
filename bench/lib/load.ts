/**
 * HTTP load with autocannon, in the bench's process (each server runs in its own). Latencies are collected from
 * autocannon's per-response event as floats: its own histogram keeps whole milliseconds, too coarse here.
 */
import autocannon from 'autocannon';
import { Samples } from './stats.js';

/** One measured load run. */
export interface LoadResult {
  requests: number;
  seconds: number;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  /** Responses per status code. */
  statuses: Record<string, number>;
  errors: number;
  /** The latencies themselves, to merge runs. */
  samples: Samples;
}

export interface LoadOptions {
  url: string;
  headers?: Record<string, string>;
  connections: number;
  /** Run for this many seconds… */
  seconds?: number;
  /** …or for this many requests. */
  amount?: number;
  /** Picks the headers of each request (e.g. a different cookie each time). */
  headersFor?: (index: number) => Record<string, string>;
  /** Where to start counting for `headersFor` (so that consecutive runs keep cycling). */
  firstIndex?: number;
  /** Seconds before a request counts as an error (30; a server under callgrind answers some fifty times slower). */
  timeoutSeconds?: number;
}

/** Runs autocannon once and summarises it. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const samples = new Samples();
  const { headersFor } = options;
  let index = options.firstIndex ?? 0;
  const instance = autocannon({
    url: options.url,
    connections: options.connections,
    pipelining: 1,
    timeout: options.timeoutSeconds ?? 30,
    ...(options.amount !== undefined ? { amount: options.amount } : { duration: options.seconds ?? 10 }),
    ...(options.headers && { headers: options.headers }),
    ...(headersFor && {
      requests: [{ setupRequest: (request: autocannon.Request) => ({ ...request, headers: { ...request.headers, ...headersFor(index++) } }) }],
    }),
  });
  instance.on('response', (_client: unknown, _status: number, _bytes: number, responseTime: number) => samples.add(responseTime));
  const result = await instance;
  const statuses: Record<string, number> = {};
  for (const [code, { count }] of Object.entries(result.statusCodeStats)) statuses[code] = count;
  const requests = samples.count;
  return {
    requests,
    seconds: result.duration,
    requestsPerSecond: requests / result.duration,
    p50: samples.percentile(50),
    p99: samples.percentile(99),
    statuses,
    errors: result.errors + result.timeouts,
    samples,
  };
}

/** Several runs of one case as one result (rates over the summed time, percentiles over all latencies). */
export function mergeLoads(results: LoadResult[]): LoadResult {
  const samples = new Samples();
  const statuses: Record<string, number> = {};
  let requests = 0;
  let seconds = 0;
  let errors = 0;
  for (const result of results) {
    samples.addAll(result.samples);
    requests += result.requests;
    seconds += result.seconds;
    errors += result.errors;
    for (const [code, count] of Object.entries(result.statuses)) statuses[code] = (statuses[code] ?? 0) + count;
  }
  return { requests, seconds, requestsPerSecond: requests / seconds, p50: samples.percentile(50), p99: samples.percentile(99), statuses, errors, samples };
}
