/**
 * Sign-in with a form you check yourself (user name and password, a one-time code, …). `authorize` returns the
 * user, or null / throws `CredentialsSignin` for wrong credentials; the user is then sent back to the sign-in page
 * with `error=CredentialsSignin&code=<code>`. Credentials sign-in uses JWT sessions.
 * @example
 * Credentials({
 *   credentials: { email: { label: 'Email', type: 'email' }, password: { label: 'Password', type: 'password' } },
 *   async authorize({ email, password }) {
 *     const user = await users.verify(String(email), String(password));
 *     return user ? { id: user.id, name: user.name, email: user.email } : null;
 *   },
 * })
 */
import { type CredentialsConfig, credentialsFlow } from '../features/credentials/index.js';
import { providerFlow } from '../contracts.js';

export type { CredentialInput, CredentialsConfig } from '../features/credentials/index.js';

/** The fields of `Credentials()`: `credentials` and `authorize` are required, `id` and `name` have defaults. */
export type CredentialsUserConfig<Fields extends string = string> = Omit<CredentialsConfig<Fields>, 'type' | 'id' | 'name' | typeof providerFlow> &
  Partial<Pick<CredentialsConfig<Fields>, 'id' | 'name'>>;

export default function Credentials<Fields extends string = string>(options: CredentialsUserConfig<Fields>): CredentialsConfig<Fields> {
  return { id: 'credentials', name: 'Credentials', ...options, type: 'credentials', [providerFlow]: credentialsFlow };
}
