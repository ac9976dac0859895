// The part of autocannon's API the bench uses (the package ships no types).
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  namespace autocannon {
    interface Request {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string;
      setupRequest?: (request: Request, context: Record<string, unknown>) => Request;
    }
    interface Options {
      url: string;
      connections?: number;
      duration?: number;
      amount?: number;
      pipelining?: number;
      timeout?: number;
      method?: string;
      headers?: Record<string, string>;
      requests?: Request[];
      excludeErrorStats?: boolean;
    }
    interface Histogram {
      average: number;
      mean: number;
      p50: number;
      p99: number;
      total: number;
    }
    interface Result {
      duration: number;
      errors: number;
      timeouts: number;
      non2xx: number;
      statusCodeStats: Record<string, { count: number }>;
      latency: Histogram;
      requests: Histogram & { sent: number };
    }
    interface Instance extends EventEmitter, PromiseLike<Result> {
      stop(): void;
    }
  }

  function autocannon(options: autocannon.Options): autocannon.Instance;
  export = autocannon;
}
