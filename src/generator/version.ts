import { readFileSync } from 'node:fs';

// src/cli/ and dist/cli/ both sit two levels below the package root.
const packageJsonUrl = new URL('../../package.json', import.meta.url);

/** The version of this CLI, from its own package.json. */
export const cliVersion: string = (JSON.parse(readFileSync(packageJsonUrl, 'utf8')) as { version: string }).version;

/** This package's name, as written into generated projects' devDependencies. */
export const cliPackageName = 'create-framework-auth';
