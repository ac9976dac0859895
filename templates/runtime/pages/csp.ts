/**
 * The Content-Security-Policy of every built-in page. The pages run no script of their own except the inline
 * scripts whose hashes are passed (the passkey buttons), so markup that slipped past escaping still cannot run.
 * Forms may post only to `formAction`'s sources (this origin and the providers', see config.ts); images may come
 * from this origin (a relative `theme.logo`), https or data URIs (provider logos).
 * @see https://www.w3.org/TR/CSP3/
 */
export function pageContentSecurityPolicy(formAction: string, scriptHashes: readonly string[] = []): string {
  const scripts = scriptHashes.length > 0 ? `; script-src ${scriptHashes.map((hash) => `'${hash}'`).join(' ')}; connect-src 'self'` : '';
  return `default-src 'none'; style-src 'unsafe-inline'; img-src 'self' https: data:; form-action ${formAction}; base-uri 'none'; frame-ancestors 'none'${scripts}`;
}
