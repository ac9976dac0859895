// Imported by the bin launchers before anything else, and written for any Node that can load an ES module: an old
// Node gets one line saying what is needed instead of a stack trace from an API it lacks (issue 11).

/** The oldest Node the CLI and the code it generates run on (`process.loadEnvFile` came in 20.12). */
export const minimumNodeVersion = '20.12.0';

function parts(version: string): number[] {
  return version.replace(/^v/, '').split('.').map((part) => Number.parseInt(part, 10) || 0);
}

/** Whether `version` (`20.20.2`, `v18.19.0`) is {@link minimumNodeVersion} or newer. */
export function isSupportedNode(version: string): boolean {
  const actual = parts(version);
  const minimum = parts(minimumNodeVersion);
  for (let index = 0; index < minimum.length; index += 1) {
    const difference = (actual[index] ?? 0) - (minimum[index] ?? 0);
    if (difference !== 0) return difference > 0;
  }
  return true;
}

/** The one-line refusal for an unsupported Node, or undefined when `version` is supported. */
export function unsupportedNodeMessage(bin: string, version: string): string | undefined {
  if (isSupportedNode(version)) return undefined;
  return `${bin} needs Node.js ${minimumNodeVersion} or newer (20, 22 and 24 are supported); this is Node.js ${version.replace(/^v/, '')}.`;
}

/** Exits with status 1 and the one-line message when this Node is too old. */
export function checkNodeVersion(bin: string): void {
  const message = unsupportedNodeMessage(bin, process.versions.node);
  if (message === undefined) return;
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

/**
 * The first release of each Node line where `require()` loads an ES module without a flag: a CommonJS project loads
 * the auth module's ESM-only dependencies (jose, oauth4webapi) that way (SPEC §12). 21.x never had it unflagged;
 * from 23 on every release does.
 */
export const requireEsmNodeVersions = { 20: '20.19.0', 22: '22.12.0' } as const;

/** Whether this Node (`20.20.2`, `v22.11.0`) can `require()` an ES module without a flag. */
export function supportsRequireEsm(version: string): boolean {
  const [major = 0, minor = 0] = parts(version);
  if (major >= 23) return true;
  if (major === 22) return minor >= 12;
  if (major === 20) return minor >= 19;
  return false;
}

/**
 * What a CommonJS project needs of Node, said when this one lacks `require(esm)`: the problem, and the release of its
 * own line to install (22.12 for 21.x and 22.x, 20.19 for 20.x and older). Undefined when it has it.
 */
export function requireEsmNodeProblem(version: string): { message: string; fix: string } | undefined {
  if (supportsRequireEsm(version)) return undefined;
  const [major = 0] = parts(version);
  const wanted = major >= 21 ? requireEsmNodeVersions[22] : requireEsmNodeVersions[20];
  return {
    message: `Node.js ${version.replace(/^v/, '')} cannot require() an ES module, which a CommonJS project does to load jose and oauth4webapi: Node.js does from ${requireEsmNodeVersions[20]} on 20.x and ${requireEsmNodeVersions[22]} on 22.x (23 and later always).`,
    fix: `Install Node.js ${wanted} or newer (nvm install ${wanted.split('.')[0]}), then run again.`,
  };
}
