/**
 * The enumeration group (security review 4, F4): can an attacker tell the addresses that have an account from those
 * that do not by how long the password provider takes to answer? The answers' bytes are the same for both; the work
 * done before the answer may not be.
 *
 * Each endpoint (sign-up, sign-in with a wrong password, reset request) is measured on a fresh app
 * (bench/servers/ours-enumeration.ts: `Password()`, SQLite, database sessions, the default rate limits, 1 ms before
 * each adapter call, as for a database one network round trip away) so that no endpoint's requests change another's
 * addresses or counters. The attacker's view, from this process on 127.0.0.1:
 * - 60 target addresses, 30 with a confirmed account and a password (created beforehand), 30 without, and 20 more the
 *   attacker controls (10 with an account, 10 without) to calibrate on;
 * - each request from its own client address (X-Forwarded-For), each POST with the token and cookie of its own GET
 *   `/auth/csrf`, one request at a time, the 80 addresses in a new random order each round;
 * - as many requests per address as the default per-address limits let through: sign-in 5 (credentialsPerUser),
 *   reset 3 (passwordEmailPerAddress), sign-up 1 (the first sign-up of an unknown address creates its account, so a
 *   second one times a known address);
 * - an address's time is the median of its requests' times (POST sent to body read); the threshold is midway
 *   between the medians of the 10 known and of the 10 unknown calibration addresses, on the side they say; each
 *   target is then classified against it.
 * A timing-safe endpoint is classified at chance: the target is at most 60% right (36 of 60).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { isRunDirectly } from '../../scripts/run-directly.js';
import { formBody } from '../../test/support/cookie-jar.js';
import { type BenchServer, compileServers, startServer } from './processes.js';
import { median } from './stats.js';

/** The endpoints measured, in the order they run. */
export const enumerationEndpoints = ['sign-up', 'sign-in', 'reset'] as const;
export type EnumerationEndpoint = (typeof enumerationEndpoints)[number];

/** Addresses of each kind. */
const TARGETS_PER_KIND = 30;
const CALIBRATION_PER_KIND = 10;
/** Addresses of each kind requested once before the timed rounds (first calls, the decoy hash), not counted. */
const WARMUP_PER_KIND = 3;
/** The most a timing-safe endpoint may be classified right (chance is 50%). */
export const ENUMERATION_TARGET_PERCENT = 60;
/** The wait before each adapter call: a database one network round trip away. */
const DB_DELAY_MS = 1;
/** A pause after each request, so that its work after the answer (messages, deferred writes) is done before the next is timed. */
const SETTLE_MS = 5;

/** How each endpoint is asked and what it must answer, for every address alike. */
const plans: Record<EnumerationEndpoint, { path: string; samples: number; limit: string; fields: (email: string) => Record<string, string>; answers: (location: string) => boolean }> = {
  'sign-up': {
    path: '/auth/signup/password',
    samples: 1,
    limit: 'the first sign-up of an unknown address creates it (passwordEmailPerAddress would allow 3)',
    fields: (email) => ({ email, password: randomPassword() }),
    answers: (location) => location.includes('/auth/verify-request'),
  },
  'sign-in': {
    path: '/auth/callback/password',
    samples: 5,
    limit: 'credentialsPerUser: 5 per 15 min',
    fields: (email) => ({ email, password: randomPassword() }),
    answers: (location) => location.includes('error=CredentialsSignin'),
  },
  reset: {
    path: '/auth/reset-password',
    samples: 3,
    limit: 'passwordEmailPerAddress: 3 per 15 min',
    fields: (email) => ({ email }),
    answers: (location) => location.includes('/auth/verify-request'),
  },
};

/** What one endpoint's classification found. */
export interface EnumerationResult {
  endpoint: EnumerationEndpoint;
  /** The wait before each adapter call, ms. */
  dbDelayMs: number;
  /** The POST timed (below the mount path `/auth`). */
  path: string;
  /** Requests per address, and the limit that sets it. */
  samplesPerAddress: number;
  limit: string;
  /** Target addresses classified (half of them known), and how many right. */
  addresses: number;
  right: number;
  percentRight: number;
  /** Met when at most ENUMERATION_TARGET_PERCENT right. */
  atChance: boolean;
  /** The calibrated threshold (ms) and the side the calibration put known addresses on. */
  thresholdMs: number;
  knownSlower: boolean;
  /** Medians of the per-address times, ms: of the 10 + 10 calibration addresses and of the 30 + 30 targets. */
  calibration: { knownMs: number; unknownMs: number };
  targets: { knownMs: number; unknownMs: number };
  /** Timed requests (warm-up left out) and the wall time of the endpoint's run, seconds. */
  requests: number;
  seconds: number;
}

interface Address {
  email: string;
  known: boolean;
  calibration: boolean;
  times: number[];
}

function randomPassword(): string {
  return `bench ${randomBytes(15).toString('base64url')}`;
}

function newAddresses(count: number, known: boolean, calibration: boolean): Address[] {
  return Array.from({ length: count }, () => ({ email: `${randomBytes(6).toString('hex')}@example.test`, known, calibration, times: [] }));
}

function shuffled<T>(items: readonly T[]): T[] {
  const copy = [...items];
  for (let index = copy.length - 1; index > 0; index--) {
    const other = randomBytes(4).readUInt32LE() % (index + 1);
    [copy[index], copy[other]] = [copy[other]!, copy[index]!];
  }
  return copy;
}

let clients = 0;

/** A client address no request has used (10.0.0.1, 10.0.0.2, …), so that no per-client limit is reached. */
function nextClient(): string {
  clients += 1;
  return `10.${(clients >> 16) & 255}.${(clients >> 8) & 255}.${clients & 255}`;
}

/** One request as a browser on a new client sends it: GET the CSRF token, then the POST, timed alone; milliseconds. */
async function timeRequest(server: BenchServer, endpoint: EnumerationEndpoint, email: string): Promise<number> {
  const plan = plans[endpoint];
  const client = { 'x-forwarded-for': nextClient() };
  const csrf = await fetch(`${server.url}/auth/csrf`, { headers: client });
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const cookie = csrf.headers.getSetCookie().map((header) => header.slice(0, header.indexOf(';'))).join('; ');
  const { body, headers } = formBody({ csrfToken, ...plan.fields(email) });
  const started = performance.now();
  const response = await fetch(`${server.url}${plan.path}`, { method: 'POST', redirect: 'manual', body, headers: { ...headers, ...client, cookie } });
  await response.arrayBuffer();
  const elapsed = performance.now() - started;
  const location = response.headers.get('location') ?? '';
  if (response.status !== 302 || !plan.answers(location)) throw new Error(`enumeration ${endpoint}: POST ${plan.path} answered ${response.status} ${location}`);
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  return elapsed;
}

/** Classifies the targets against the threshold the calibration addresses give. */
function classify(endpoint: EnumerationEndpoint, addresses: Address[], requests: number, seconds: number): EnumerationResult {
  const timeOf = (address: Address): number => median(address.times);
  const mediansOf = (group: Address[]): { knownMs: number; unknownMs: number } => ({
    knownMs: median(group.filter((address) => address.known).map(timeOf)),
    unknownMs: median(group.filter((address) => !address.known).map(timeOf)),
  });
  const calibration = mediansOf(addresses.filter((address) => address.calibration));
  const thresholdMs = (calibration.knownMs + calibration.unknownMs) / 2;
  const knownSlower = calibration.knownMs > calibration.unknownMs;
  const targets = addresses.filter((address) => !address.calibration);
  const right = targets.filter((address) => (timeOf(address) > thresholdMs === knownSlower) === address.known).length;
  const percentRight = (100 * right) / targets.length;
  return {
    endpoint,
    dbDelayMs: DB_DELAY_MS,
    path: plans[endpoint].path,
    samplesPerAddress: plans[endpoint].samples,
    limit: plans[endpoint].limit,
    addresses: targets.length,
    right,
    percentRight,
    atChance: percentRight <= ENUMERATION_TARGET_PERCENT,
    thresholdMs,
    knownSlower,
    calibration,
    targets: mediansOf(targets),
    requests,
    seconds,
  };
}

/** One endpoint on its own fresh app and database. */
async function measureEndpoint(endpoint: EnumerationEndpoint, build: string, work: string, secret: string): Promise<EnumerationResult> {
  const server = await startServer(`ours-enumeration-${endpoint}`, join(build, 'ours-enumeration.js'), {
    env: { AUTH_SECRET: secret, DATABASE_URL: `file:${join(work, `enumeration-${endpoint}.db`)}`, BENCH_DB_DELAY_MS: String(DB_DELAY_MS) },
  });
  try {
    const addresses = [
      ...newAddresses(TARGETS_PER_KIND, true, false),
      ...newAddresses(TARGETS_PER_KIND, false, false),
      ...newAddresses(CALIBRATION_PER_KIND, true, true),
      ...newAddresses(CALIBRATION_PER_KIND, false, true),
    ];
    const warmup = [...newAddresses(WARMUP_PER_KIND, true, false), ...newAddresses(WARMUP_PER_KIND, false, false)];
    await server.call('addUsers', [...addresses, ...warmup].filter((address) => address.known).map((address) => address.email));
    for (const address of shuffled(warmup)) await timeRequest(server, endpoint, address.email);
    const started = performance.now();
    let requests = 0;
    for (let round = 0; round < plans[endpoint].samples; round++) {
      for (const address of shuffled(addresses)) {
        address.times.push(await timeRequest(server, endpoint, address.email));
        requests += 1;
      }
    }
    return classify(endpoint, addresses, requests, (performance.now() - started) / 1000);
  } finally {
    await server.stop();
  }
}

/**
 * Runs the three endpoints, one fresh app each (`build`: the compiled bench servers; `work`: a temp folder for the
 * databases), and logs a line per endpoint.
 */
export async function measureEnumeration(build: string, work: string, log: (message: string) => void): Promise<EnumerationResult[]> {
  const secret = randomBytes(32).toString('base64url');
  const results: EnumerationResult[] = [];
  for (const endpoint of enumerationEndpoints) {
    const result = await measureEndpoint(endpoint, build, work, secret);
    results.push(result);
    log(
      `enumeration ${endpoint}: ${result.right}/${result.addresses} right (${Math.round(result.percentRight)}%), ${result.samplesPerAddress} per address; ` +
        `known ${result.targets.knownMs.toFixed(2)} ms, unknown ${result.targets.unknownMs.toFixed(2)} ms; threshold ${result.thresholdMs.toFixed(2)} ms ` +
        `(known ${result.knownSlower ? 'slower' : 'faster'}); ${result.requests} requests in ${result.seconds.toFixed(1)} s`,
    );
  }
  return results;
}

/** The results as a small markdown table. */
export function renderEnumerationTable(results: EnumerationResult[]): string {
  const header = ['Endpoint', 'POST', 'Per address', 'Right', 'Known ms', 'Unknown ms', 'Threshold ms', `Target ≤ ${ENUMERATION_TARGET_PERCENT}%`];
  const lines = results.map((result) => [
    result.endpoint,
    result.path,
    String(result.samplesPerAddress),
    `${result.right}/${result.addresses} (${Math.round(result.percentRight)}%)`,
    result.targets.knownMs.toFixed(2),
    result.targets.unknownMs.toFixed(2),
    `${result.thresholdMs.toFixed(2)} (known ${result.knownSlower ? 'slower' : 'faster'})`,
    result.atChance ? 'met' : 'MISSED',
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...lines.map((line) => line[column]!.length)));
  const format = (cells: string[]): string => `| ${cells.map((cell, column) => cell.padEnd(widths[column]!)).join(' | ')} |`;
  return [format(header), `|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`, ...lines.map(format)].join('\n');
}

// `npx tsx bench/lib/enumeration.ts`: this group alone, without the rest of the bench's setup.
if (isRunDirectly(import.meta.url)) {
  const work = await mkdtemp(join(tmpdir(), 'cfa-enumeration-'));
  try {
    const build = await compileServers(join(work, 'build'));
    const loadBefore = loadavg()[0]!;
    const results = await measureEnumeration(build, work, (message) => void process.stderr.write(`[enumeration] ${message}\n`));
    process.stdout.write(`${renderEnumerationTable(results)}\nLoad average (1 min): ${loadBefore.toFixed(1)} at start, ${loadavg()[0]!.toFixed(1)} at end.\n`);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
