// Each catalog provider's verified-email rule (`isEmailVerified`), as the runtime resolves it: only what the provider
// documents as a verified address counts; anything else, including a claim of the wrong type, proves nothing.
// GitHub's rule reads what its /user/emails lookup found (github.test.ts drives the lookup against a stand-in).
import { describe, expect, it } from 'vitest';

import type { AnyProvider, Profile } from '../../templates/runtime/index.js';
import Auth0 from '../../templates/runtime/providers/auth0.js';
import Discord from '../../templates/runtime/providers/discord.js';
import GitHub, { type GitHubEmail, isVerifiedEmail, primaryVerifiedEmail } from '../../templates/runtime/providers/github.js';
import GitLab from '../../templates/runtime/providers/gitlab.js';
import Google from '../../templates/runtime/providers/google.js';
import Keycloak from '../../templates/runtime/providers/keycloak.js';
import MicrosoftEntraID from '../../templates/runtime/providers/microsoft-entra-id.js';
import Microblog from '../../templates/runtime/providers/microblog.js';
import OIDC from '../../templates/runtime/providers/oidc.js';
import type { ResolvedOAuthProvider } from '../../templates/runtime/contracts.js';
import { resolveProviders } from '../../templates/runtime/providers/resolve.js';

function ruleOf(provider: AnyProvider): (profile: Profile) => boolean {
  const [resolved] = resolveProviders([provider], { env: {}, redirectProxyUrl: undefined });
  return (resolved as ResolvedOAuthProvider).isEmailVerified;
}

const address = 'ada@example.test';
const oidcStandard: [string, Profile, boolean][] = [
  ['email_verified true', { email: address, email_verified: true }, true],
  ['email_verified false', { email: address, email_verified: false }, false],
  ['no email_verified claim', { email: address }, false],
  ['email_verified as the string "true"', { email: address, email_verified: 'true' as unknown as boolean }, false],
];

const cases: [string, () => AnyProvider, [string, Profile, boolean][]][] = [
  ['google', () => Google(), oidcStandard],
  ['keycloak', () => Keycloak(), oidcStandard],
  ['auth0', () => Auth0(), oidcStandard],
  ['oidc', () => OIDC(), oidcStandard],
  [
    'microsoft-entra-id',
    () => MicrosoftEntraID(),
    [
      ['email_verified true', { email: address, email_verified: true }, true],
      ['xms_edov true (the domain owner is verified)', { email: address, xms_edov: true }, true],
      ['only an email, as Entra sends it by default (nOAuth)', { email: address }, false],
      ['email_verified and xms_edov false', { email: address, email_verified: false, xms_edov: false }, false],
      ['xms_edov as the number 1', { email: address, xms_edov: 1 }, false],
    ],
  ],
  [
    'discord',
    () => Discord(),
    [
      ['verified true', { email: address, verified: true }, true],
      ['verified false', { email: address, verified: false }, false],
      ['no verified field', { email: address }, false],
      ['email_verified true (not a Discord field)', { email: address, email_verified: true }, false],
    ],
  ],
  [
    'gitlab',
    () => GitLab(),
    [
      ['confirmed_at set', { email: address, confirmed_at: '2024-03-01T10:00:00.000Z' }, true],
      ['confirmed_at null (not confirmed yet)', { email: address, confirmed_at: null }, false],
      ['no confirmed_at', { email: address }, false],
      ['confirmed_at empty', { email: address, confirmed_at: '' }, false],
    ],
  ],
  [
    'github',
    () => GitHub(),
    [
      ['an address the /user/emails lookup found verified', { email: address, email_verified: true }, true],
      ['an address the lookup did not find verified', { email: address, email_verified: false }, false],
      ['no lookup result (a replaced userinfo request)', { email: address }, false],
    ],
  ],
  [
    'microblog (OAuth 1.0a)',
    () => Microblog({ version: '1.0A' }),
    [
      ['an email from verify_credentials (only verified ones are returned)', { id_str: '1', email: address }, true],
      ['no email', { id_str: '1' }, false],
      ['an empty email', { id_str: '1', email: '' }, false],
    ],
  ],
  [
    'microblog (OAuth 2)',
    () => Microblog(),
    [
      ['an email in data', { data: { id: '1', email: address } }, false],
      ['email_verified true at the top', { data: { id: '1' }, email: address, email_verified: true }, false],
    ],
  ],
];

describe.each(cases)('the verified-email rule of %s', (_id, create, table) => {
  it.each(table)('%s → %s', (_case, profile, expected) => {
    expect(ruleOf(create())(profile)).toBe(expected);
  });
});

describe('the verified-email rule of providers outside the catalog', () => {
  it('is email_verified === true for an OpenID Connect provider without its own rule', () => {
    const rule = ruleOf({ id: 'corp', name: 'Corp', type: 'oidc', issuer: 'https://id.example.test' });
    expect(rule({ email: address, email_verified: true })).toBe(true);
    expect(rule({ email: address, email_verified: false })).toBe(false);
  });

  it('is always false for a plain OAuth 2 provider without a rule (fail closed)', () => {
    const rule = ruleOf({ id: 'custom', name: 'Custom', type: 'oauth', authorization: 'https://oauth.example.test/authorize' });
    expect(rule({ email: address, email_verified: true, verified: true })).toBe(false);
  });

  it('is the rule given in the options, over the catalog default', () => {
    const rule = ruleOf(Google({ isEmailVerified: (profile) => profile.email_verified === true && profile.hd === 'example.test' }));
    expect(rule({ email: address, email_verified: true })).toBe(false);
    expect(rule({ email: address, email_verified: true, hd: 'example.test' })).toBe(true);
  });
});

describe("GitHub's /user/emails lookup", () => {
  const emails: GitHubEmail[] = [
    { email: 'old@example.test', primary: false, verified: true, visibility: null },
    { email: 'unverified@example.test', primary: false, verified: false, visibility: null },
    { email: 'primary@example.test', primary: true, verified: true, visibility: 'private' },
  ];

  it.each([
    ['the verified primary address', 'primary@example.test', true],
    ['another verified address', 'old@example.test', true],
    ['an unverified address', 'unverified@example.test', false],
    ['an address not in the list', 'elsewhere@example.test', false],
  ])('counts %s as verified: %s', (_case, email, expected) => {
    expect(isVerifiedEmail(emails, email as string)).toBe(expected);
  });

  it('fills a missing email only with a primary address GitHub verified', () => {
    expect(primaryVerifiedEmail(emails)).toBe('primary@example.test');
    expect(primaryVerifiedEmail([{ email: 'primary@example.test', primary: true, verified: false, visibility: 'private' }])).toBeNull();
  });
});
