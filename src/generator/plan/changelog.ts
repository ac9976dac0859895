import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliPackageRoot } from '../paths.js';

/**
 * This package's CHANGELOG.md, in Keep a Changelog's format (https://keepachangelog.com/en/1.1.0/): what changes in
 * `src/auth/` per version, so that users who own that code can decide whether to run `framework-auth update`.
 */

/** The subsections of a version, in the order `update` shows them: security fixes first. */
export const changeKinds = ['Security', 'Added', 'Changed', 'Deprecated', 'Removed', 'Fixed'] as const;

/** A subsection of a version (`### Security`). */
export type ChangeKind = (typeof changeKinds)[number];

/** The heading of the changes no version has yet. */
export const unreleasedVersion = 'Unreleased';

/** One `## [version] - date` section. */
export interface ChangelogRelease {
  /** `0.2.0`, or `Unreleased`. */
  version: string;
  /** `YYYY-MM-DD`; undefined for `Unreleased` only. */
  date: string | undefined;
  /** The entries of each subsection that has any, each entry one line (its wrapped lines joined by a space). */
  sections: Partial<Record<ChangeKind, string[]>>;
}

/** Where the changelog is, beside package.json: in the repository and in the published package alike. */
export const changelogPath: string = join(cliPackageRoot, 'CHANGELOG.md');

const versionPattern = /^(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/;
const releaseHeading = /^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?\s*$/;
const kindHeading = /^### (.+?)\s*$/;
const listItem = /^[-*] +(.*)$/;
// `[0.1.0]: https://…` at the end of the file: the targets of the headings' links, not changes.
const linkDefinition = /^\[[^\]]+\]: \S+/;

/**
 * Parses a changelog: the `## [version] - YYYY-MM-DD` sections (and `## [Unreleased]`) in file order, newest first.
 * Text before the first version is its introduction and is skipped; inside a version, every line is a `### Kind`
 * heading, a `- ` entry, an entry's continuation (indented, or right below it), or blank. Throws an Error naming the
 * line of anything else, so that nothing written in a version is left out of what `update` shows.
 */
export function parseChangelog(text: string): ChangelogRelease[] {
  const releases: ChangelogRelease[] = [];
  let release: ChangelogRelease | undefined;
  let entries: string[] | undefined;
  // The index in `entries` of the entry the next continuation line belongs to (undefined after a blank line).
  let open: number | undefined;
  const lines = text.split(/\r?\n/);
  lines.forEach((line, index) => {
    const refuse = (what: string): Error => new Error(`CHANGELOG.md line ${index + 1}: ${what} (got ${JSON.stringify(line)})`);
    if (line.startsWith('## ')) {
      const heading = releaseHeading.exec(line);
      if (!heading) throw refuse('a version heading is "## [1.2.3] - YYYY-MM-DD" or "## [Unreleased]"');
      const [, version = '', date] = heading;
      if (version !== unreleasedVersion && !versionPattern.test(version)) throw refuse(`"${version}" is not a version such as 1.2.3`);
      if (version !== unreleasedVersion && date === undefined) throw refuse(`version ${version} needs its release date, "## [${version}] - YYYY-MM-DD"`);
      if (releases.some((earlier) => earlier.version === version)) throw refuse(`version ${version} has a section already`);
      release = { version, date, sections: {} };
      releases.push(release);
      entries = undefined;
      open = undefined;
      return;
    }
    if (release === undefined || line.trim() === '' || linkDefinition.test(line)) {
      open = undefined;
      return;
    }
    const kind = kindHeading.exec(line)?.[1];
    if (kind !== undefined) {
      const known = changeKinds.find((candidate) => candidate === kind);
      if (known === undefined) throw refuse(`a subsection is one of ${changeKinds.join(', ')}`);
      if (release.sections[known] !== undefined) throw refuse(`version ${release.version} has a ${known} subsection already`);
      entries = [];
      release.sections[known] = entries;
      open = undefined;
      return;
    }
    const item = listItem.exec(line);
    if (item && entries !== undefined) {
      entries.push((item[1] ?? '').trim());
      open = entries.length - 1;
      return;
    }
    const continues = entries !== undefined && entries.length > 0 && (open !== undefined || /^\s/.test(line));
    if (!continues || entries === undefined) throw refuse('inside a version, text belongs to a "- " entry under a "### " subsection');
    const last = entries.length - 1;
    entries[last] = `${entries[last] ?? ''} ${line.trim()}`;
    open = last;
  });
  for (const each of releases) {
    for (const kind of changeKinds) if (each.sections[kind]?.length === 0) delete each.sections[kind];
  }
  return releases;
}

/**
 * Orders two versions as semver does (a pre-release sorts before its release; build metadata is ignored): negative
 * when `a` is older, 0 when equal, positive when newer. Undefined when either is not a version.
 */
export function compareVersions(a: string, b: string): number | undefined {
  const left = versionPattern.exec(a);
  const right = versionPattern.exec(b);
  if (!left || !right) return undefined;
  for (const part of [1, 2, 3]) {
    const difference = Number(left[part]) - Number(right[part]);
    if (difference !== 0) return difference;
  }
  return comparePreRelease(left[4], right[4]);
}

function comparePreRelease(a: string | undefined, b: string | undefined): number {
  if (a === b) return 0;
  if (a === undefined) return 1;
  if (b === undefined) return -1;
  const left = a.split('.');
  const right = b.split('.');
  for (let index = 0; index < Math.min(left.length, right.length); index += 1) {
    const x = left[index] ?? '';
    const y = right[index] ?? '';
    if (x === y) continue;
    const xNumeric = /^\d+$/.test(x);
    const yNumeric = /^\d+$/.test(y);
    // semver §11: numeric identifiers compare as numbers and sort before alphanumeric ones.
    if (xNumeric && yNumeric) return Number(x) - Number(y);
    if (xNumeric !== yNumeric) return xNumeric ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return left.length - right.length;
}

/**
 * The versions a project crosses when `update` brings it from the CLI version its manifest records to the running
 * one: every section whose version is newer than `recorded` and no newer than `running`, newest first. None when
 * the two are equal, when `recorded` is newer (a downgrade), or when either is not a version.
 *
 * `[Unreleased]` is never among them. Its changes have no version yet: a build from a checkout carries the version of
 * package.json, the same one a project made from an earlier checkout records, so no comparison can tell whether the
 * project has them. Releasing moves them under the new version's heading, and from then on they are shown.
 */
export function changesBetween(releases: readonly ChangelogRelease[], recorded: string, running: string): ChangelogRelease[] {
  const order = compareVersions(recorded, running);
  if (order === undefined || order >= 0) return [];
  return releases.filter((release) => {
    if (release.version === unreleasedVersion) return false;
    const afterRecorded = compareVersions(release.version, recorded);
    const upToRunning = compareVersions(release.version, running);
    return afterRecorded !== undefined && afterRecorded > 0 && upToRunning !== undefined && upToRunning <= 0;
  });
}

/**
 * This package's changelog, parsed. A package without the file (a build that left it out) has no changes to show,
 * which is no reason to stop an update: the result is empty.
 */
export function readPackageChangelog(path: string = changelogPath): ChangelogRelease[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return parseChangelog(text);
}
