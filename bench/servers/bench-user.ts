/** The one user of the bench: the same claims in both apps' sessions, the same credentials in both sign-ins. */
export const BENCH_USER = { id: 'bench-user', name: 'Bench User', email: 'bench@example.test' } as const;

/** The username and password both credentials providers accept. */
export const BENCH_CREDENTIALS = { username: 'bench', password: 'bench-password' } as const;

/** `authorize()` of both apps. */
export function benchUser(credentials: Partial<Record<string, unknown>>): { id: string; name: string; email: string } | null {
  return credentials['username'] === BENCH_CREDENTIALS.username && credentials['password'] === BENCH_CREDENTIALS.password
    ? { ...BENCH_USER }
    : null;
}
