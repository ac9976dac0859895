/** Package managers the CLI can install with. */
export const packageManagers = ['npm', 'pnpm', 'yarn', 'bun'] as const;

/** A supported package manager. */
export type PackageManager = (typeof packageManagers)[number];

/** Whether `value` names a supported package manager. */
export function isPackageManager(value: string): value is PackageManager {
  return (packageManagers as readonly string[]).includes(value);
}

/** Lockfiles by package manager, checked in this order. */
export const lockfiles = [
  ['package-lock.json', 'npm'],
  ['npm-shrinkwrap.json', 'npm'],
  ['pnpm-lock.yaml', 'pnpm'],
  ['yarn.lock', 'yarn'],
  ['bun.lock', 'bun'],
  ['bun.lockb', 'bun'],
] as const satisfies readonly (readonly [string, PackageManager])[];

/** The command that installs a project's dependencies. */
export function installCommand(pm: PackageManager): { command: PackageManager; args: string[] } {
  return { command: pm, args: pm === 'npm' ? ['install', '--no-audit', '--no-fund'] : ['install'] };
}

/** `npm run dev`, `pnpm dev`, ...: how a user runs a package.json script. */
export function runScriptCommand(pm: PackageManager, script: string): string {
  return pm === 'npm' || pm === 'bun' ? `${pm} run ${script}` : `${pm} ${script}`;
}

/** `npx framework-auth migrate`, `pnpm exec ...`: how a user runs a bin of the project's own dependencies. */
export function runBinCommand(pm: PackageManager, command: string): string {
  const runner = { npm: 'npx', pnpm: 'pnpm exec', yarn: 'yarn', bun: 'bunx' } as const satisfies Record<PackageManager, string>;
  return `${runner[pm]} ${command}`;
}

/** The command that adds a development dependency to a project: `npm install --save-dev x`, `pnpm add -D x`, ... */
export function addDevDependencyCommand(pm: PackageManager, spec: string): { command: PackageManager; args: string[] } {
  if (pm === 'npm') return { command: pm, args: ['install', '--save-dev', '--no-audit', '--no-fund', spec] };
  return { command: pm, args: ['add', pm === 'bun' ? '-d' : '-D', spec] };
}
