import { adapterCatalog, adapterIds, findAdapter } from '../catalog/adapters.js';
import type { AdapterId } from '../catalog/adapters.js';
import { checkMountPath } from '../catalog/mount-path.js';
import { describeProviderIds, findProvider, getProvider, providersRequiringAdapter } from '../catalog/providers.js';
import type { ProviderId } from '../catalog/providers.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { featuresOn, missingNeededFeatures, whyNeeded } from '../catalog/features.js';
import type { FeatureAnswers } from '../catalog/features.js';
import { runtimeTemplateDir } from './paths.js';
import { usageError } from './errors.js';

/**
 * The answers that decide what `create-framework-auth` writes: the providers, the mount path, the adapter, and each
 * catalog feature that is on (`twoFactor: true` for `--two-factor`; absent: off).
 */
export type Answers = {
  providers: ProviderId[];
  mount: string;
  adapter: AdapterId;
} & FeatureAnswers;

/** Parses `--providers a,b`: ids or aliases, de-duplicated in the given order. Throws a usage error listing valid ids. */
export function parseProviderList(value: string, label = '--providers'): ProviderId[] {
  const names = value
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (names.length === 0) {
    throw usageError(`${label} must name at least one provider (valid: ${describeProviderIds()})`);
  }
  const ids: ProviderId[] = [];
  for (const name of names) {
    const entry = findProvider(name);
    if (!entry) {
      throw usageError(`Unknown provider "${name}" in ${label}. Valid providers: ${describeProviderIds()}`);
    }
    if (!ids.includes(entry.id)) ids.push(entry.id);
  }
  return ids;
}

/** Checks `--mount`; throws a usage error saying what is valid. */
export function parseMountPath(value: string, label = '--mount'): string {
  const problem = checkMountPath(value, label);
  if (problem !== undefined) throw usageError(problem);
  return value;
}

/** Whether the runtime this CLI ships has the files an adapter needs. */
export function isAdapterAvailable(id: AdapterId): boolean {
  const entry = findAdapter(id);
  return entry !== undefined && (entry.runtimeFile === null || existsSync(join(runtimeTemplateDir, entry.runtimeFile)));
}

/** Checks `--adapter`; unknown names and adapters whose runtime has not shipped yet are usage errors. */
export function parseAdapter(value: string, label = '--adapter'): AdapterId {
  const entry = findAdapter(value);
  if (!entry) {
    throw usageError(`Unknown adapter "${value}" in ${label}. Valid adapters: ${adapterIds.join(', ')}`);
  }
  if (!isAdapterAvailable(entry.id)) {
    const available = adapterCatalog.filter((candidate) => isAdapterAvailable(candidate.id)).map((candidate) => candidate.id);
    throw usageError(
      `The "${entry.id}" adapter is not available in this version of create-framework-auth yet. Available: ${available.join(', ')}`,
      'Use --adapter none for JWT sessions without a database.',
    );
  }
  return entry.id;
}

/**
 * Each feature that is on gets what it needs (catalog/features.ts): the features it works beside, one of its providers
 * (two-factor asks for a code after a password: `password` or `credentials`) and an adapter when it stores through
 * one. Refused before anything is written otherwise.
 */
export function checkFeaturesFit(answers: Pick<Answers, 'providers' | 'adapter'> & FeatureAnswers): void {
  const on = featuresOn(answers);
  for (const feature of on) {
    const [missing] = missingNeededFeatures(feature, on);
    if (missing) throw usageError(`${feature.flag.name} ${whyNeeded(feature, missing)}, and ${missing.flag.name} is not given.`, `Add ${missing.flag.name}.`);
    const { flag, needs: { providers: needed, adapter: stored } } = feature;
    if (needed && !answers.providers.some((id) => needed.ids.includes(id))) {
      throw usageError(
        `${flag.name} ${needed.why}, and none of the providers (${answers.providers.join(', ')}) ${needed.does}.`,
        `Add ${needed.suggestedText} to --providers, e.g. --providers ${[...answers.providers, needed.suggested].join(',')}.`,
      );
    }
    if (stored && answers.adapter === 'none') {
      throw usageError(
        `${flag.name} needs a database adapter, but --adapter is "none": ${stored.stored} are stored through the adapter.`,
        `Choose one with --adapter ${adapterIds.filter((id) => id !== 'none').join(', ')} (sqlite keeps them in a local file).`,
      );
    }
  }
}

/**
 * Email links and passkeys are stored in the database, so those providers need an adapter: with `--adapter none`
 * the answers are refused before anything is written (the runtime would refuse to start).
 */
export function checkProvidersFitAdapter(answers: Pick<Answers, 'providers' | 'adapter'>): void {
  if (answers.adapter !== 'none') return;
  const needing = providersRequiringAdapter(answers.providers);
  if (needing.length === 0) return;
  const names = needing.join(' and ');
  throw usageError(
    `The ${names} provider${needing.length > 1 ? 's need' : ' needs'} a database adapter, but --adapter is "none" (JWT sessions without a database): ${needing.map((id) => getProvider(id).storedThroughAdapter).join(' and ')} are stored through the adapter.`,
    `Choose one with --adapter ${adapterIds.filter((id) => id !== 'none').join(', ')} (sqlite keeps them in a local file), or leave out ${names}.`,
  );
}
