import { confirm, isCancel, multiselect, select, text } from '@clack/prompts';
import type { Readable, Writable } from 'node:stream';
import { adapterCatalog, defaultAdapterId } from '../catalog/adapters.js';
import type { AdapterId } from '../catalog/adapters.js';
import { checkMountPath, defaultMountPath } from '../catalog/mount-path.js';
import { defaultProviderIds, providerCatalog, providersRequiringAdapter } from '../catalog/providers.js';
import type { ProviderId } from '../catalog/providers.js';
import { featureAnswers, featureCatalog, missingNeededFeatures } from '../catalog/features.js';
import type { FeatureAnswers, FeatureEntry } from '../catalog/features.js';
import { cancelledError, usageError } from '../generator/errors.js';
import { isAdapterAvailable } from '../generator/answers.js';
import type { Answers } from '../generator/answers.js';

/** Where and whether to ask. */
export interface PromptContext {
  input: Readable;
  output: Writable;
  /** False without a terminal: a missing answer is then a usage error naming its flag. */
  interactive: boolean;
  /** `--yes`: take the default of every unanswered question, never ask. */
  yes: boolean;
  /** The adapter the project uses already (a re-run), the default in place of `none`. */
  currentAdapter?: AdapterId | undefined;
  /** The features the project has already (a re-run keeps them): `{ twoFactor: true }`. */
  currentFeatures?: FeatureAnswers | undefined;
}

const flagOf = { providers: '--providers <ids>', mount: '--mount <path>', adapter: '--adapter <name>' } as const;

function unwrap<T>(value: T): Exclude<T, symbol> {
  if (isCancel(value) || typeof value === 'symbol') throw cancelledError();
  return value as Exclude<T, symbol>;
}

/**
 * Completes the answers given by flags: defaults under `--yes`, questions in a terminal, otherwise a usage error
 * that names the missing flags (never a prompt that waits forever on a pipe).
 */
export async function askAnswers(known: Partial<Answers>, context: PromptContext): Promise<Answers> {
  if (context.yes) {
    return {
      providers: known.providers ?? [...defaultProviderIds],
      mount: known.mount ?? defaultMountPath,
      adapter: known.adapter ?? context.currentAdapter ?? defaultAdapterId,
      ...featureAnswers(featureCatalog.filter((entry) => (known[entry.answersKey] ?? context.currentFeatures?.[entry.answersKey]) === true)),
    };
  }
  const missing = (Object.keys(flagOf) as (keyof typeof flagOf)[]).filter((key) => known[key] === undefined);
  if (missing.length > 0 && !context.interactive) {
    throw usageError(
      `Missing ${missing.map((key) => flagOf[key]).join(', ')}: there is no terminal to ask in.`,
      'Pass the flags, or --yes to accept the defaults (--providers oidc --mount /auth --adapter none).',
    );
  }
  const common = { input: context.input, output: context.output };
  const providers =
    known.providers ??
    unwrap(
      await multiselect<ProviderId>({
        ...common,
        message: 'Which sign-in providers? (space to toggle, enter to confirm)',
        options: providerCatalog.map((entry) => ({ value: entry.id, label: entry.name, hint: entry.hint })),
        initialValues: [...defaultProviderIds],
        required: true,
      }),
    );
  // A feature is asked about when the answers so far fit it: the features it works beside chosen (they come first in
  // the catalog), one of its providers chosen, and (when it stores through an adapter) no --adapter none. Without a
  // terminal (--providers, --mount and --adapter all given) it is never asked, as under --yes: its flag, or what the
  // project has already; a prompt there would wait forever.
  const features: FeatureEntry[] = [];
  for (const entry of featureCatalog) {
    const { providers: needed, adapter: stored } = entry.needs as FeatureEntry['needs'];
    const fits = (!needed || providers.some((id) => needed.ids.includes(id))) && !(stored && known.adapter === 'none') && missingNeededFeatures(entry, features).length === 0;
    const current = context.currentFeatures?.[entry.answersKey] ?? false;
    const on =
      known[entry.answersKey] ??
      (!context.interactive
        ? current
        : fits &&
          unwrap(
            await confirm({
              ...common,
              message: entry.question,
              initialValue: current,
            }),
          ));
    if (on) features.push(entry);
  }
  const mount =
    known.mount ??
    unwrap(
      await text({
        ...common,
        message: 'Mount path of the auth routes?',
        initialValue: defaultMountPath,
        validate: (value) => checkMountPath(value ?? '', 'The mount path'),
      }),
    );
  // Providers that store through an adapter (email links, passkeys, password accounts) and features that do
  // (two-factor) are offered SQLite, and no choice without a database.
  const needing = [...providersRequiringAdapter(providers), ...features.filter((entry) => entry.needs.adapter !== undefined).map((entry) => entry.id)];
  const current = context.currentAdapter ?? defaultAdapterId;
  const adapter =
    known.adapter ??
    unwrap(
      await select<AdapterId>({
        ...common,
        message: 'Where should sessions live?',
        initialValue: needing.length > 0 && current === 'none' ? 'sqlite' : current,
        options: adapterCatalog.map((entry) => {
          const available = isAdapterAvailable(entry.id);
          const refused = needing.length > 0 && entry.id === 'none';
          const hint = !available ? 'not available in this version yet' : refused ? `${needing.join(' and ')} need${needing.length > 1 ? '' : 's'} a database` : entry.hint;
          return { value: entry.id, label: entry.name, hint, disabled: !available || refused };
        }),
      }),
    );
  return { providers, mount, adapter, ...featureAnswers(features) };
}
