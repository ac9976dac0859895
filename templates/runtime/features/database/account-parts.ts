/**
 * What a feature adds to the account (features/account/): rows of "How you sign in", links to its pages or a section
 * of its own on the account page, fields of the page's JSON, entries of the export, a refusal before a deletion, what
 * it forgets of an address the user no longer has, and forms below `<mount>/account/`. Declared here, beside the storage every such feature needs,
 * so that a feature brings its part whether or not the app has the account. The account reads each feature's part in
 * the order of `order`, then of the features, and names none of them.
 */
import type { RequestContext, ResolvedConfig } from '../../contracts.js';
import type { SafeHtml } from '../../pages/html.js';
import type { AdapterUser } from '../../types.js';
import type { Adapter, AdapterAccount } from './adapter.js';

declare module '../../contracts.js' {
  interface Feature {
    /** What it adds to the account page, the export and the deletion (features/account/). */
    account?: AccountPart;
  }
}

/** A signed-in user's request to the account, as each part is given it. */
export interface AccountPartRequest {
  context: RequestContext;
  adapter: Adapter;
  user: AdapterUser;
}

/** What a part's form (`AccountPart.forms`) is given beside the request: the account's own answers. */
export interface AccountFormRequest extends AccountPartRequest {
  /** The client prefers JSON. */
  json: boolean;
  /** How many ways the user has to sign in with these linked accounts (the account's count and each part's). */
  waysToSignIn(accounts: readonly AdapterAccount[]): Promise<number>;
  /** What the account answers a removal that would leave the user no way to sign in. */
  lastWay: string;
  /** The account page again (400) with the refused field's error beside it; JSON `{ error: 'InvalidRequest', errors }`. */
  refuse(errors: Readonly<Record<string, string>>): Promise<void>;
  /** Done: JSON `body` with `status`, or back to the account page with the notice of that name (`AccountPart.notices`). */
  done(status: number, body: unknown, notice: string): void;
}

/** What the account page gives a part to write its HTML with: where it is mounted, the refused fields, its helpers. */
export interface AccountPageKit {
  mountPath: string;
  /** The refused form's errors by field: shown below "How you sign in" as `account-<field>-error`. */
  errors: Readonly<Partial<Record<string, string>>>;
  /** A one-button form that POSTs `fields` and the CSRF token to `<mount>/account/<path>`. */
  buttonForm(path: string, fields: Readonly<Record<string, string>>, label: string, attributes?: SafeHtml | string): SafeHtml;
  /** `aria-invalid` and `aria-describedby` of a control whose form was refused (`id`: `account-<field>`). */
  invalid(id: string, error: string | undefined): SafeHtml | string;
}

/** A part's HTML on the account page, each piece escaped by the pages' `html` tag. */
export interface AccountPartHtml {
  /** Items (`<li>`) of "How you sign in". */
  methods?: readonly SafeHtml[];
  /** Links to its pages, beside "Your sessions" and the export. */
  links?: readonly SafeHtml[];
  /** A section of its own, below those links: its heading, its rows (`<li>`) and links under them. */
  section?: { heading: string; rows?: readonly SafeHtml[]; links?: readonly SafeHtml[] };
}

/** What a part shows of one user: in the page's JSON, and as HTML. Never a hash, token, secret or key. */
export interface AccountPartView {
  /** Fields of the JSON (`passkeys`, `password`). */
  json?: Readonly<Record<string, unknown>>;
  /** Which of its pages the page links, in the JSON's `links` (`apiKeys: true`). */
  links?: Readonly<Record<string, boolean>>;
  html?(page: AccountPageKit): AccountPartHtml;
}

/** A feature's part of the account; every member is optional. */
export interface AccountPart {
  /** Where its rows, links, sections and export entries come among the other features' (ascending). @default 0 */
  order?: number;
  /** At startup, with the account in the app: throws when something the part needs is missing (adapter methods). */
  check?(options: ResolvedConfig): void;
  view?(request: AccountPartRequest): Promise<AccountPartView>;
  /** Entries of the export (GDPR art. 15 and 20), by name: plain JSON values, never a hash, token, secret or key. */
  export?(request: AccountPartRequest): Promise<Readonly<Record<string, unknown>>>;
  /** How many ways to sign in the user has beyond these linked accounts (a password; a passkey with no account row). */
  waysToSignIn?(request: AccountPartRequest, accounts: readonly AdapterAccount[]): Promise<number>;
  /** Before a deletion: why the account may not be deleted yet (answered 400 beside the delete form), or undefined. */
  beforeDelete?(request: AccountPartRequest): Promise<string | undefined>;
  /**
   * What it keeps under an address its user no longer has (the account deleted, or its address changed), which no
   * cascade from the user reaches: tokens and rows keyed by the address.
   */
  forgetAddress?(options: ResolvedConfig, adapter: Adapter, email: string): Promise<void>;
  /** Forms below `<mount>/account/` it answers, by path: POST, signed in, with the CSRF token and a recent authentication. */
  forms?: Readonly<Record<string, (request: AccountFormRequest, body: Record<string, unknown>) => Promise<void>>>;
  /** What its forms' redirects show at the top of the page (`?notice=<name>`), by name. */
  notices?: Readonly<Record<string, string>>;
}
