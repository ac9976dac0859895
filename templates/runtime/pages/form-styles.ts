/**
 * The styles of the features' fields and forms beyond the layout's: labels and inputs, hints and field errors,
 * secondary and disabled buttons. A feature's pages pass them to `layout`, and a provider's flow to the sign-in page
 * (`ProviderFlow.pageStyles`), so that a project whose pages have no fields (the default scaffold) does not hold them.
 */
export const formStyles = `
form+form{margin-top:12px}
label{display:block;font-weight:600;margin:14px 0 4px}
label:first-of-type{margin-top:0}
input{width:100%;min-height:44px;padding:10px 12px;border:1px solid var(--field);border-radius:8px;background:var(--card);color:var(--text);font:inherit}
input::placeholder{color:var(--muted);opacity:1}
button:disabled{cursor:not-allowed;opacity:.55;filter:none}
button.secondary,.button.secondary{background:transparent;color:var(--text);border-color:var(--field)}
input:focus-visible{border-color:var(--focus)}
.hint{color:var(--muted);font-size:.9rem;margin:6px 0 0}
.field-error{color:var(--error-text);font-size:.9rem;font-weight:600;margin:6px 0 0}
.note{color:var(--muted);font-size:.9rem;margin:12px 0 0}
.note:empty{display:none}
`;
