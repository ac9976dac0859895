// One description of what a project holds for its providers and adapter (issue 24): every command reconciles the
// project against desired(), so the rules for which runtime files, dependencies and env keys a project has live in
// one place. A pure function of the choices: no project folder is read.
import { describe, expect, it } from 'vitest';
import { packageTemplateDirs } from '../../src/generator/paths.js';
import { readTemplates } from '../../src/generator/release.js';
import { desired } from '../../src/generator/plan/desired.js';
import { readRuntimeFiles, runtimeHeader } from '../../src/generator/plan/runtime-files.js';

/** A release of this CLI: its templates, at a version of the test's own (to see the headers come from it). */
const release = { version: '9.9.9', templates: readTemplates(packageTemplateDirs) };

describe('desired(choices, release)', () => {
  it('holds the runtime files the choices reach, each with the header of the version that copies it', () => {
    const project = desired({ providers: ['oidc'], adapter: 'none' }, release);
    expect([...project.runtime.keys()]).toEqual(readRuntimeFiles(['oidc'], 'none', release.templates).map((file) => file.path));
    expect(project.runtime.get('index.ts')!.split('\n')[0]).toBe(runtimeHeader(release.version));
    expect([...project.runtime.keys()].filter((path) => path.startsWith('features/'))).toEqual([]);
  });

  it('adds the database feature, the adapter file, its driver and its env key with an adapter', () => {
    const project = desired({ providers: ['oidc'], adapter: 'sqlite' }, release);
    expect([...project.runtime.keys()]).toEqual(expect.arrayContaining(['adapters/sqlite.ts', 'features/database/index.ts', 'features/database/sign-in.ts']));
    expect(Object.keys(project.dependencies)).toEqual(['better-sqlite3']);
    expect(project.envKeys).toEqual(['AUTH_OIDC_ID', 'AUTH_OIDC_SECRET', 'AUTH_OIDC_ISSUER', 'DATABASE_URL']);
  });

  it('is the union of what each provider brings: adding one adds exactly its files, dependencies and keys', () => {
    const without = desired({ providers: ['oidc'], adapter: 'sqlite' }, release);
    const withEmail = desired({ providers: ['oidc', 'email'], adapter: 'sqlite' }, release);
    const addedFiles = [...withEmail.runtime.keys()].filter((path) => !without.runtime.has(path));
    expect(addedFiles.sort()).toEqual(
      [
        'email-address.ts',
        'features/database/adapter-needs.ts',
        'features/email-sign-in/email-sign-in.ts',
        'features/email-sign-in/index.ts',
        'features/email/errors.ts',
        'features/email/index.ts',
        'features/email/link-token.ts',
        'features/email/recipient-limits.ts',
        'features/email/smtp.ts',
        'features/email/verify-request-route.ts',
        'features/rate-limit/index.ts',
        'features/rate-limit/rate-limit.ts',
        'features/rate-limit/storage.ts',
        'http/client-address.ts',
        'http/requested-callback-url.ts',
        'providers/email.ts',
      ].sort(),
    );
    expect(Object.keys(withEmail.dependencies).filter((name) => !(name in without.dependencies))).toEqual(['nodemailer']);
    expect(withEmail.envKeys.filter((key) => !without.envKeys.includes(key))).toEqual(['AUTH_EMAIL_SERVER', 'AUTH_EMAIL_FROM']);
  });

  it('brings the password feature with the password provider, sharing the email transport and links with email', () => {
    const withEmail = desired({ providers: ['oidc', 'email'], adapter: 'sqlite' }, release);
    const both = desired({ providers: ['oidc', 'email', 'password'], adapter: 'sqlite' }, release);
    const added = [...both.runtime.keys()].filter((path) => !withEmail.runtime.has(path));
    expect(added.sort()).toEqual(
      [
        'features/database/account-parts.ts',
        'features/database/ask-to-reauthenticate.ts',
        'features/password/account.ts',
        'features/password/breached.ts',
        'features/password/change-password-route.ts',
        'features/password/common-passwords.ts',
        'features/password/confirm-address.ts',
        'features/password/hash.ts',
        'features/password/mail.ts',
        'features/password/pages.ts',
        'features/password/index.ts',
        'features/password/policy.ts',
        'features/password/reset-password-route.ts',
        'features/password/shared.ts',
        'features/password/sign-in.ts',
        'features/password/sign-up-route.ts',
        'features/password/storage.ts',
        'providers/password.ts',
      ].sort(),
    );
    expect(Object.keys(both.dependencies).filter((name) => !(name in withEmail.dependencies))).toEqual(['@node-rs/argon2']);
    expect(both.envKeys.filter((key) => !withEmail.envKeys.includes(key))).toEqual([]);
  });
});
