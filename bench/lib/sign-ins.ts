/**
 * Full sign-ins driven over HTTP, as a browser would: credentials (csrf + callback) and OpenID Connect
 * (csrf + signin → oidc-provider's login page → callback with code, state and PKCE). Each completed sign-in ends
 * with a session cookie; anything else is counted as a failure.
 */
import { createJar, formBody } from '../../test/support/cookie-jar.js';
import { loginThroughProvider } from '../../test/support/oidc-provider.js';
import { BENCH_CREDENTIALS } from '../servers/bench-user.js';
import { Samples } from './stats.js';

/** One sign-in run. */
export interface SignInResult {
  signIns: number;
  failures: number;
  seconds: number;
  signInsPerSecond: number;
  p50: number;
  p99: number;
  firstFailure?: string;
  /** The latencies themselves, to merge runs. */
  samples: Samples;
}

const SESSION_COOKIE = 'authjs.session-token';

function cookiePairs(response: Response): string[] {
  return response.headers.getSetCookie().map((header) => header.slice(0, header.indexOf(';')));
}

/** One credentials sign-in: GET /auth/csrf, then POST /auth/callback/credentials. */
export async function credentialsSignIn(baseUrl: string): Promise<void> {
  const csrf = await fetch(`${baseUrl}/auth/csrf`);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const { body, headers } = formBody({ csrfToken, ...BENCH_CREDENTIALS, callbackUrl: `${baseUrl}/protected` });
  const callback = await fetch(`${baseUrl}/auth/callback/credentials`, {
    method: 'POST',
    redirect: 'manual',
    body,
    headers: { ...headers, cookie: cookiePairs(csrf).join('; ') },
  });
  await callback.arrayBuffer();
  const location = callback.headers.get('location') ?? '';
  if (callback.status !== 302 || location.includes('error=') || !cookiePairs(callback).some((pair) => pair.startsWith(`${SESSION_COOKIE}=`))) {
    throw new Error(`credentials sign-in answered ${callback.status} ${location}`);
  }
}

/** One OpenID Connect sign-in with a fresh browser (cookie jar), ending with the app's session cookie. */
export async function oidcSignIn(baseUrl: string): Promise<void> {
  const jar = createJar();
  const csrf = await jar.fetch(`${baseUrl}/auth/csrf`);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const signIn = await jar.fetch(`${baseUrl}/auth/signin/oidc`, { method: 'POST', ...formBody({ csrfToken, callbackUrl: `${baseUrl}/protected` }) });
  await signIn.arrayBuffer();
  const authorizationUrl = signIn.headers.get('location');
  if (signIn.status !== 302 || !authorizationUrl) throw new Error(`signin/oidc answered ${signIn.status}`);
  const callbackUrl = await loginThroughProvider(jar, authorizationUrl);
  const callback = await jar.fetch(callbackUrl);
  await callback.arrayBuffer();
  const location = callback.headers.get('location') ?? '';
  if (callback.status !== 302 || location.includes('error=') || !jar.get(SESSION_COOKIE, baseUrl)) {
    throw new Error(`OIDC callback answered ${callback.status} ${location}`);
  }
}

/**
 * Runs `signIn` from `concurrency` loops until `seconds` have passed or `count` sign-ins have started, whichever
 * comes first.
 */
export async function runSignIns(
  signIn: () => Promise<void>,
  limits: { seconds: number; count?: number; concurrency: number },
): Promise<SignInResult> {
  const samples = new Samples();
  let failures = 0;
  let started = 0;
  let firstFailure: string | undefined;
  const begin = performance.now();
  const deadline = begin + limits.seconds * 1000;
  const loop = async (): Promise<void> => {
    while (performance.now() < deadline && (limits.count === undefined || started < limits.count)) {
      started++;
      const t0 = performance.now();
      try {
        await signIn();
        samples.add(performance.now() - t0);
      } catch (error) {
        failures++;
        firstFailure ??= error instanceof Error ? error.message : String(error);
      }
    }
  };
  await Promise.all(Array.from({ length: limits.concurrency }, loop));
  const seconds = (performance.now() - begin) / 1000;
  return {
    signIns: samples.count,
    failures,
    seconds,
    signInsPerSecond: samples.count / seconds,
    p50: samples.percentile(50),
    p99: samples.percentile(99),
    ...(firstFailure !== undefined && { firstFailure }),
    samples,
  };
}

/** Several runs as one result. */
export function mergeSignIns(results: SignInResult[]): SignInResult {
  const samples = new Samples();
  let failures = 0;
  let seconds = 0;
  let firstFailure: string | undefined;
  for (const result of results) {
    samples.addAll(result.samples);
    failures += result.failures;
    seconds += result.seconds;
    firstFailure ??= result.firstFailure;
  }
  return {
    signIns: samples.count,
    failures,
    seconds,
    signInsPerSecond: samples.count / seconds,
    p50: samples.percentile(50),
    p99: samples.percentile(99),
    ...(firstFailure !== undefined && { firstFailure }),
    samples,
  };
}
