/**
 * The suspensions' part of the account (features/database/account-parts.ts): a section listing them, their entry of
 * the export, and a refusal to delete an account while it is suspended (the suspension is reviewed first).
 */
import type { AccountPart } from '../../../templates/runtime/features/database/account-parts.js';
import { html } from '../../../templates/runtime/pages/html.js';
import { suspensionMethods, type Suspension } from './storage.js';

/** Why a suspended account may not be deleted yet (shown beside the delete form). */
export const DELETE_REFUSAL = 'Your account is suspended: it can be deleted once the suspension has been reviewed.';

const day = (date: Date): string => date.toISOString().slice(0, 10);

const exported = (suspension: Suspension) => ({ reason: suspension.reason, startedAt: suspension.startedAt.toISOString(), liftedAt: suspension.liftedAt?.toISOString() ?? null });

export const suspensionsAccountPart: AccountPart = {
  async view({ adapter, user }) {
    const suspensions = await suspensionMethods(adapter).listSuspensions(user.id);
    return {
      json: { suspensions: suspensions.map(exported) },
      html: () => ({
        section: {
          heading: 'Suspensions',
          rows:
            suspensions.length === 0
              ? [html`<li>Your account has never been suspended.</li>`]
              : suspensions.map((suspension) => html`<li>${day(suspension.startedAt)}: ${suspension.reason} (${suspension.liftedAt ? `lifted ${day(suspension.liftedAt)}` : 'open'})</li>`),
        },
      }),
    };
  },
  async export({ adapter, user }) {
    return { suspensions: (await suspensionMethods(adapter).listSuspensions(user.id)).map(exported) };
  },
  async beforeDelete({ adapter, user }) {
    return (await suspensionMethods(adapter).getOpenSuspension(user.id)) ? DELETE_REFUSAL : undefined;
  },
};
