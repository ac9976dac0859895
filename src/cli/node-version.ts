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
