// CHANGELOG.md, as `framework-auth update` reads it: the parser, the versions between two CLI versions, and the
// package's own changelog (a section for its version, shipped in the tarball).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { changesBetween, compareVersions, parseChangelog, readPackageChangelog } from '../../src/generator/plan/changelog.js';
import { cliPackageRoot } from '../../src/generator/paths.js';
import { cliVersion } from '../../src/generator/version.js';

const fixture = `# Changelog

All notable changes, in the format of [Keep a Changelog](https://keepachangelog.com/en/1.1.0/).

## [Unreleased]

### Fixed

- Something not released yet.

## [0.3.0] - 2026-12-20

### Security

- Sign-in links live one hour
  (\`src/auth/core/email-sign-in.ts\`).
- Errors hold no token.

### Changed

* A star entry.

  Its second paragraph, indented.

## [0.2.0] - 2026-12-01

### Added

- Passkeys.

### Removed

## [0.1.0] - 2026-11-24

### Added

- The first version.

[Unreleased]: https://example.com/compare/v0.3.0...HEAD
[0.3.0]: https://example.com/compare/v0.2.0...v0.3.0
`;

describe('parseChangelog', () => {
  const releases = parseChangelog(fixture);

  it('reads every version heading in file order, with its date, and Unreleased without one', () => {
    expect(releases.map(({ version, date }) => [version, date])).toEqual([
      ['Unreleased', undefined],
      ['0.3.0', '2026-12-20'],
      ['0.2.0', '2026-12-01'],
      ['0.1.0', '2026-11-24'],
    ]);
  });

  it('groups the entries by subsection and leaves out a subsection without entries', () => {
    expect(Object.keys(releases[1]!.sections)).toEqual(['Security', 'Changed']);
    expect(releases[2]!.sections).toEqual({ Added: ['Passkeys.'] });
  });

  it('joins an entry that spans lines, or paragraphs, into one line', () => {
    expect(releases[1]!.sections.Security).toEqual(['Sign-in links live one hour (`src/auth/core/email-sign-in.ts`).', 'Errors hold no token.']);
    expect(releases[1]!.sections.Changed).toEqual(['A star entry. Its second paragraph, indented.']);
  });

  it('skips the introduction and the link definitions at the end', () => {
    expect(releases[3]!.sections).toEqual({ Added: ['The first version.'] });
  });

  it('refuses a version without its release date, naming the line', () => {
    expect(() => parseChangelog('## [1.0.0]\n\n### Added\n\n- x\n')).toThrow('CHANGELOG.md line 1: version 1.0.0 needs its release date');
  });

  it('refuses a heading that is not a version', () => {
    expect(() => parseChangelog('## [next] - 2026-01-01\n')).toThrow('"next" is not a version such as 1.2.3');
  });

  it('refuses a subsection Keep a Changelog does not name', () => {
    expect(() => parseChangelog('## [1.0.0] - 2026-01-01\n\n### Improved\n\n- x\n')).toThrow('line 3: a subsection is one of Security, Added, Changed, Deprecated, Removed, Fixed');
  });

  it('refuses text in a version that belongs to no entry', () => {
    expect(() => parseChangelog('## [1.0.0] - 2026-01-01\n\nA paragraph.\n')).toThrow('line 3: inside a version, text belongs to a "- " entry');
  });

  it('refuses a version that has a section already', () => {
    expect(() => parseChangelog('## [1.0.0] - 2026-01-01\n\n## [1.0.0] - 2026-01-02\n')).toThrow('line 3: version 1.0.0 has a section already');
  });
});

describe('changesBetween', () => {
  const releases = parseChangelog(fixture);
  const versions = (recorded: string, running: string): string[] => changesBetween(releases, recorded, running).map((release) => release.version);

  it('returns the versions newer than the recorded one and no newer than the running one, newest first', () => {
    expect(versions('0.1.0', '0.3.0')).toEqual(['0.3.0', '0.2.0']);
  });

  it('returns every version up to the running one for a project older than them all', () => {
    expect(versions('0.0.1', '0.2.0')).toEqual(['0.2.0', '0.1.0']);
  });

  it('returns nothing when the recorded version is the running one', () => {
    expect(versions('0.3.0', '0.3.0')).toEqual([]);
  });

  it('returns nothing for a downgrade', () => {
    expect(versions('0.3.0', '0.2.0')).toEqual([]);
  });

  it('returns nothing when the recorded version is not a version', () => {
    expect(versions('latest', '0.3.0')).toEqual([]);
  });

  it('never returns Unreleased, even for a running version newer than every section', () => {
    expect(versions('0.2.0', '0.4.0')).toEqual(['0.3.0']);
  });
});

describe('compareVersions', () => {
  it('orders versions by their numbers, not as text', () => {
    expect(compareVersions('0.10.0', '0.9.1')).toBeGreaterThan(0);
  });

  it('orders a pre-release before its release, and pre-releases by their identifiers', () => {
    expect(compareVersions('1.0.0-beta.2', '1.0.0')).toBeLessThan(0);
    expect(compareVersions('1.0.0-beta.2', '1.0.0-beta.10')).toBeLessThan(0);
    expect(compareVersions('1.0.0-alpha', '1.0.0-alpha.1')).toBeLessThan(0);
  });
});

describe("this package's CHANGELOG.md", () => {
  it("has a section for package.json's version", () => {
    const pkg = JSON.parse(readFileSync(join(cliPackageRoot, 'package.json'), 'utf8')) as { version: string };
    expect(readPackageChangelog().map((release) => release.version)).toContain(pkg.version);
    expect(pkg.version).toBe(cliVersion);
  });

  it('starts with the Unreleased section, then versions newest first, each with a date', () => {
    const [first, ...released] = readPackageChangelog();
    expect(first?.version).toBe('Unreleased');
    for (const release of released) expect(release.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const ordered = released.map((release) => release.version).sort((a, b) => compareVersions(b, a) ?? 0);
    expect(released.map((release) => release.version)).toEqual(ordered);
  });

  it('ships in the npm package', async () => {
    const packed = await execa('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: cliPackageRoot });
    const [listing] = JSON.parse(packed.stdout) as [{ files: { path: string }[] }];
    expect(listing.files.map((file) => file.path)).toContain('CHANGELOG.md');
  });
});
