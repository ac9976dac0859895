// Docs that cannot drift (issue 15): the README's provider table is generated from the catalog (npm run docs), and
// its route table names exactly the routes the handler serves.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { commandReference, generatedSection, providerReadmeTable } from '../scripts/docs-sections.js';
import { emailFlow } from '../templates/runtime/features/email-sign-in/index.js';
import { database } from '../templates/runtime/features/database/index.js';
import { webAuthnFlow } from '../templates/runtime/features/passkey/index.js';
import { commonPasswords } from '../templates/runtime/features/password/common-passwords.js';
import { PASSWORD_HASH } from '../templates/runtime/features/password/hash.js';
import { passwordFlow } from '../templates/runtime/features/password/index.js';
import { TwoFactor } from '../templates/runtime/features/two-factor/index.js';
import { ApiKeys } from '../templates/runtime/features/api-keys/index.js';
import { Account } from '../templates/runtime/features/account/index.js';
import { Organizations } from '../templates/runtime/features/organizations/index.js';
import { Admin } from '../templates/runtime/features/admin/index.js';
import { MAX_IMPERSONATION_SECONDS } from '../templates/runtime/features/admin/settings.js';
import { OWNER, resolveOrganizations } from '../templates/runtime/features/organizations/roles.js';
import { SHOWN_EVENTS } from '../templates/runtime/features/account/account-view.js';
import { API_KEY_PREFIX } from '../templates/runtime/features/api-keys/keys.js';
import { RECOVERY_CODE_COUNT } from '../templates/runtime/features/two-factor/secrets.js';
import { TOTP_DIGITS, TOTP_PERIOD, TOTP_WINDOW } from '../templates/runtime/features/two-factor/totp.js';
import { PENDING_MAX_AGE } from '../templates/runtime/features/two-factor/two-factor.js';
import { allRateLimitDefaults as defaultRateLimitRules } from './support/all-features.js';
import { DEFAULT_MIN_PASSWORD_LENGTH, LOWEST_MIN_PASSWORD_LENGTH, MAX_PASSWORD_LENGTH } from '../templates/runtime/features/password/policy.js';
import type { RouteSpec } from '../templates/runtime/contracts.js';
import { migrate } from '../templates/runtime/adapters/sqlite.js';
import { allFeatures } from './support/all-features.js';
import { routes } from '../templates/runtime/router.js';

/** Every route an app can serve: the core's, and those of every feature (the adapter's, two-factor's, API keys', the account's, organizations', administration's, the email, passkey and password flows'). */
const allRoutes: Record<string, RouteSpec> = {
  ...routes,
  ...Object.assign({}, ...[database, TwoFactor(), ApiKeys(), Account({ sendMessage: () => {} }), Organizations({ sendMessage: () => {} }), Admin({ sendMessage: () => {} }, {}), ...[emailFlow, webAuthnFlow, passwordFlow].flatMap((flow) => flow.features ?? [])].map((feature) => feature.routes ?? {})),
};

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const providersDoc = readFileSync(new URL('../docs/providers.md', import.meta.url), 'utf8');
const configurationDoc = readFileSync(new URL('../docs/configuration.md', import.meta.url), 'utf8');
const cliDoc = readFileSync(new URL('../docs/cli.md', import.meta.url), 'utf8');

describe('docs/providers.md and docs/configuration.md', () => {
  it('lists every catalog provider as npm run docs generates it (run it after changing the catalog)', () => {
    expect(generatedSection(providersDoc, 'providers')).toBe(providerReadmeTable());
  });

  it('has a route table naming exactly the methods and paths the handler serves', () => {
    const served = Object.entries(allRoutes).flatMap(([action, spec]) =>
      spec.methods.map((method) => {
        // POST /signin and the routes that require one name the provider segment; GET /signin is the page.
        const withProvider = spec.provider === 'required' || (spec.provider === 'optional' && method === 'POST');
        return `${method} /${action}${withProvider ? '/:provider' : ''}`;
      }),
    );
    const table = configurationDoc.slice(configurationDoc.indexOf('| route | does |'), configurationDoc.indexOf('Other methods answer 405'));
    const documented = new Set<string>();
    for (const line of table.split('\n').filter((row) => row.startsWith('| `'))) {
      // The first cell: "`GET /csrf`", "`GET`/`POST /callback/:provider`" (two methods, one path) or
      // "`GET /signout`, `POST /signout`" (one method per path). A path below a route's own
      // ("`GET /organizations/invitations/<token>`") is that route's: its first segment is the route.
      const cell = line.split('|')[1] ?? '';
      const methods = [...cell.matchAll(/\b(GET|POST)\b/g)].map((found) => found[1]!);
      const paths = [...cell.matchAll(/(?<=[\s`])(\/[a-z-]+(?:\/:provider)?)/g)].map((found) => found[1]!);
      methods.forEach((method, index) => documented.add(`${method} ${paths.length === 1 ? paths[0] : paths[index]}`));
    }
    const documentedRoutes = [...documented];
    expect(documentedRoutes.sort()).toEqual([...new Set(served)].sort());
  });

});

describe('README.md', () => {
  it('says in "Two-factor" only what the feature does: its route, its code rules and its limits', () => {
    const section = readme.slice(readme.indexOf('## Two-factor'), readme.indexOf('## API keys'));
    const served = Object.keys(TwoFactor().routes ?? {});
    for (const [, route] of section.matchAll(/`\/auth\/([a-z-]+)`/g)) expect(served).toContain(route);
    expect(section).toContain(`${TOTP_DIGITS} digits, ${TOTP_PERIOD} s, one step either side`);
    expect(TOTP_WINDOW).toBe(1);
    expect(section).toContain(`then ${RECOVERY_CODE_COUNT} recovery codes`);
    expect(section).toContain(`an encrypted cookie of ${PENDING_MAX_AGE / 60} minutes`);
    expect(section).toMatch(new RegExp(`five wrong codes end the pending sign-in`));
    expect(defaultRateLimitRules.twoFactorPerSignIn).toEqual({ window: 300, max: 5 });
    expect(section).toContain(`${['ten'][defaultRateLimitRules.twoFactorPerUser.max - 10] ?? defaultRateLimitRules.twoFactorPerUser.max} wrong codes per ${defaultRateLimitRules.twoFactorPerUser.window / 60} minutes`);
  });

  it('says in "API keys" only what the feature does: its route, its key prefix and its limit', () => {
    const section = readme.slice(readme.indexOf('## API keys'), readme.indexOf('## Account'));
    const named = [...section.matchAll(/`\/auth\/([a-z-]+)`/g)].map((match) => match[1]!);
    expect(named.length).toBeGreaterThan(0);
    for (const route of named) expect(Object.keys(ApiKeys().routes ?? {})).toContain(route);
    expect(section).toContain(`Bearer ${API_KEY_PREFIX}…`);
    const rule = defaultRateLimitRules.apiKeyFailuresPerClient;
    expect(section).toContain(`${rule.max} failures per ${rule.window / 60} minutes from one client: 429`);
  });

  it('says in "Account" only what the feature does: its paths, its option names and the events it lists', () => {
    const section = readme.slice(readme.indexOf('## Account'), readme.indexOf('## Organizations'));
    const feature = Account({ sendMessage: () => {} });
    const named = [...section.matchAll(/`\/auth\/([a-z-]+)(?:\/([a-z/-]+))?`/g)].map((match) => [match[1]!, match[2]] as const);
    expect(named.length).toBeGreaterThan(4);
    for (const [action, subpath] of named) {
      expect(Object.keys(feature.routes ?? {})).toContain(action);
      if (subpath) expect(feature.routes?.[action]?.subpaths).toContain(subpath);
    }
    expect(section).toContain(`the last ${SHOWN_EVENTS} security events`);
    expect(feature.features?.map((brought) => brought.id)).toEqual(['security-events', 'rate-limit', 'email-recipient-limits', 'security-notifications']);
    for (const option of ['retentionDays', 'ipPrecision', 'onSecurityEvent']) expect(section).toContain(`\`events.${option}\``);
  });

  it('says in "Organizations" only what the feature does: its paths, its default roles and its invitation lifetime', () => {
    const section = readme.slice(readme.indexOf('## Organizations'), readme.indexOf('## Administration'));
    const feature = Organizations({ sendMessage: () => {} });
    const named = [...section.matchAll(/`\/auth\/([a-z-]+)(?:\/([^`]+))?`/g)].map((match) => [match[1]!, match[2]] as const);
    expect(named.length).toBeGreaterThan(1);
    for (const [action, subpath] of named) {
      expect(Object.keys(feature.routes ?? {})).toContain(action);
      // `<slug>` stands for any one segment, as the route's `*` does.
      if (subpath) expect(feature.routes?.[action]?.subpaths).toContain(subpath.replace(/<[a-z]+>/g, '*'));
    }
    const settings = resolveOrganizations({});
    expect(section).toContain(`works once, for ${settings.invitationExpiresInDays} days`);
    expect(section).toContain(`\`${OWNER}\` (every permission), ${[...settings.roles.keys()].filter((role) => role !== OWNER).map((role) => `\`${role}\``).join(', ')} or your own`);
  });

  it('says in "Administration" only what the feature does: its paths and how long an impersonation may last', () => {
    const section = readme.slice(readme.indexOf('## Administration'), readme.indexOf('## Documentation'));
    const feature = Admin({ sendMessage: () => {} }, {});
    const named = [...section.matchAll(/`\/auth\/([a-z-]+)(?:\/([^`]+))?`/g)].map((match) => [match[1]!, match[2]] as const);
    expect(named.length).toBeGreaterThan(0);
    for (const [action, subpath] of named) {
      expect(Object.keys(feature.routes ?? {})).toContain(action);
      if (subpath) expect(feature.routes?.[action]?.subpaths).toContain(subpath.replace(/<[a-z]+>/g, '*'));
    }
    expect(MAX_IMPERSONATION_SECONDS).toBe(60 * 60);
    expect(section).toContain('for at most an hour');
  });

  it('names in "Email and password" only routes the password feature serves, and its limits as the code has them', () => {
    const section = readme.slice(readme.indexOf('## Email and password'), readme.indexOf('## Two-factor'));
    const named = [...section.matchAll(/`\/auth\/([a-z-]+)`/g)].map((match) => match[1]!);
    const served = Object.keys(Object.assign({}, ...(passwordFlow.features ?? []).map((feature) => feature.routes ?? {})));
    expect(named.length).toBeGreaterThan(0);
    for (const route of named) expect(served).toContain(route);
    expect(section).toContain(`one of ${commonPasswords.size.toLocaleString('en-US')} common passwords`);
    expect(section).toContain(`m = ${PASSWORD_HASH.memoryCost / 1024} MiB, t = ${PASSWORD_HASH.timeCost}, p = ${PASSWORD_HASH.parallelism}`);
    expect(section).toContain(`at least ${DEFAULT_MIN_PASSWORD_LENGTH} characters`);
    expect(section).toContain(`never below ${LOWEST_MIN_PASSWORD_LENGTH}`);
    expect(section).toContain(`at most\n  ${MAX_PASSWORD_LENGTH}`);
  });

  it('is short: what it is, the pictures, the two commands, how to use it, links (issue 28)', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(160);
  });

  it("names exactly the CLI's dependencies in the repository layout", () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { dependencies: Record<string, string> };
    const line = /^src\/\s+the CLI \(([^)]*)\)$/m.exec(readme)?.[1] ?? '';
    expect(line.split(',').map((name) => name.trim()).sort()).toEqual(Object.keys(pkg.dependencies).sort());
  });

  it('uses only flags the CLI defines in its command examples', async () => {
    const reference = await commandReference();
    const examples = readme.slice(readme.indexOf('## Use it in your project'), readme.indexOf('The CLI writes:'));
    const flags = new Set([...examples.matchAll(/ (--[a-z-]+)/g)].map((found) => found[1]!));
    expect(flags.size).toBeGreaterThan(5);
    for (const flag of flags) expect(reference, `README's ${flag}`).toContain(flag);
  });
});

describe('the README\'s repository layout', () => {
  it('names every folder of src/ and src/generator/, and each folder it names exists', () => {
    const tree = /<!-- repo-tree:[^>]*-->([\s\S]*?)<!-- \/repo-tree -->/.exec(readme)?.[1] ?? '';
    const named = [...tree.matchAll(/^([a-z][a-z0-9/-]*\/)\s/gm)].map((match) => match[1]!);
    const folders = (path: string): string[] =>
      readdirSync(new URL(`../${path}`, import.meta.url), { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => `${path}${entry.name}/`);
    const expected = [...folders('src/').filter((folder) => folder !== 'src/generator/'), ...folders('src/generator/')];
    expect(named.filter((name) => name.startsWith('src/') && name !== 'src/').sort()).toEqual(expected.sort());
    expect(named.filter((name) => !existsSync(new URL(`../${name}`, import.meta.url)))).toEqual([]);
  });
});

describe('docs/adapters.md', () => {
  const adaptersDoc = readFileSync(new URL('../docs/adapters.md', import.meta.url), 'utf8');

  it('names exactly the tables the SQLite and PostgreSQL adapters create', () => {
    const section = adaptersDoc.slice(adaptersDoc.indexOf('## Tables'), adaptersDoc.indexOf('\n## ', adaptersDoc.indexOf('## Tables') + 1));
    const listed = section.slice(section.indexOf('The tables are'), section.indexOf('(snake_case')).match(/`[a-z_]+`/g)?.map((name) => name.slice(1, -1));
    // The core's tables are written out in each adapter; the features' tables are TableSpecs both render alike.
    const coreTables = (adapter: string): string[] =>
      [...readFileSync(new URL(`../templates/runtime/adapters/${adapter}.ts`, import.meta.url), 'utf8').matchAll(/CREATE TABLE IF NOT EXISTS (\w+)/g)].map((match) => match[1]!).sort();
    expect(coreTables('sqlite')).toEqual(coreTables('postgres'));
    const sqlite = new Database(':memory:');
    try {
      const created = migrate({ database: sqlite, features: allFeatures });
      const tables = (sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]).map((table) => table.name);
      expect(tables).toEqual([...created].sort());
      expect(created).toEqual(expect.arrayContaining(coreTables('sqlite')));
      expect(listed?.sort()).toEqual([...created].sort());
    } finally {
      sqlite.close();
    }
  });
});

describe('docs/cli.md', () => {
  it('lists every command and flag as commander defines them (run npm run docs after changing one)', async () => {
    expect(generatedSection(cliDoc, 'commands')).toBe(await commandReference());
  });
});

describe('docs/runtime-contract.md', () => {
  const contract = readFileSync(new URL('../docs/runtime-contract.md', import.meta.url), 'utf8');
  const runtimeIndex = readFileSync(new URL('../templates/runtime/index.ts', import.meta.url), 'utf8');
  const section = (title: string): string => contract.split(/^## /m).find((part) => part.startsWith(title)) ?? '';

  it('names only functions that templates/runtime/index.ts exports', () => {
    const exported = new Set([...runtimeIndex.matchAll(/^export \{([^}]*)\}/gm)].flatMap((match) => (match[1] ?? '').split(',').map((name) => name.trim())));
    const named = [...section('What `templates/runtime/index.ts` exports').matchAll(/`([A-Za-z]+)\(/g)].map((match) => match[1] ?? '');
    expect(named.length).toBeGreaterThan(4);
    expect(named.filter((name) => !exported.has(name))).toEqual([]);
  });

  it('names only functions that session-management.ts exports in its section', () => {
    const module = readFileSync(new URL('../templates/runtime/features/database/session-management.ts', import.meta.url), 'utf8');
    const exported = new Set([...module.matchAll(/^export (?:async )?function (\w+)/gm)].map((match) => match[1]));
    const named = [...section('Session management').matchAll(/`([A-Za-z]+)\(/g)].map((match) => match[1] ?? '');
    expect(named).toEqual(['listSessions', 'endSession', 'endOtherSessions', 'endAllSessions', 'sessionIdOf']);
    expect(named.filter((name) => !exported.has(name))).toEqual([]);
  });

  it('describes every folder of templates/runtime/ and nothing else in its tree section', () => {
    const tree = /<!-- runtime-tree:[^>]*-->([\s\S]*?)<!-- \/runtime-tree -->/.exec(contract)?.[1] ?? '';
    const named = [...tree.matchAll(/^- `([a-z0-9-]+\/|\.\/)`/gm)].map((match) => match[1]!).filter((name) => name !== './');
    const folders = readdirSync(new URL('../templates/runtime/', import.meta.url), { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => `${entry.name}/`);
    expect(named.sort()).toEqual(folders.sort());
  });

  it('has a row for every folder of templates/runtime/features/ in its features table', () => {
    const table = section('Features');
    const rows = [...table.matchAll(/^\| `features\/([a-z0-9-]+)\/` \|/gm)].map((match) => match[1]!);
    const folders = readdirSync(new URL('../templates/runtime/features/', import.meta.url));
    expect(rows.sort()).toEqual(folders.sort());
  });

  it('lists exactly the provider files of templates/runtime/providers/', () => {
    const files = readdirSync(new URL('../templates/runtime/providers/', import.meta.url))
      .map((name) => name.replace(/\.ts$/, ''))
      .filter((name) => name !== 'types' && name !== 'resolve')
      .sort();
    const listed = /Present: ([^(]*)\(/.exec(section('Providers').replace(/\s+/g, ' '))?.[1] ?? '';
    expect([...listed.matchAll(/`([a-z0-9-]+)`/g)].map((match) => match[1]).sort()).toEqual(files);
  });
});

describe('links in the docs (issue 28)', () => {
  const root = new URL('../', import.meta.url);
  const documents = ['README.md', 'SECURITY.md', ...(existsSync(new URL('CHANGELOG.md', root)) ? ['CHANGELOG.md'] : []), ...readdirSync(new URL('docs/', root)).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];

  /** GitHub's anchor of a heading: lower case, punctuation but hyphens dropped, spaces to hyphens. */
  const slug = (heading: string): string =>
    heading
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replace(/ /g, '-');

  it.each(documents)('every relative link and image of %s resolves, anchors included', (document) => {
    const text = readFileSync(new URL(document, root), 'utf8').replace(/```[\s\S]*?```/g, '');
    const targets = [...text.matchAll(/\]\(([^)\s]+)\)/g), ...text.matchAll(/\bsrc="([^"]+)"/g)].map((match) => match[1]!);
    const broken = targets
      .filter((target) => !/^[a-z]+:/i.test(target))
      .filter((target) => {
        const [path = '', anchor] = target.split('#');
        const file = path === '' ? new URL(document, root) : new URL(path, new URL(document, root));
        if (!existsSync(file)) return true;
        if (anchor === undefined || !file.pathname.endsWith('.md')) return false;
        const headings = [...readFileSync(file, 'utf8').matchAll(/^#{1,6} (.+)$/gm)].map((match) => slug(match[1]!));
        return !headings.includes(anchor);
      });
    expect(broken).toEqual([]);
  });
});
