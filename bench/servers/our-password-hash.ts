/**
 * The bench user's password hashed with our runtime's function (templates/runtime/features/password/hash.ts), as
 * ours-password and the floor (express-hash) store it: the PHC string, its parameters for the bench's preflight line,
 * and the IPC call that times the check a sign-in does, alone, in the server's process.
 */
import { hashPassword, verifyPassword } from '../../templates/runtime/features/password/hash.js';
import { timeHashes } from './hash-timing.js';
import { PASSWORD_USER } from './password-user.js';

export async function ourPasswordHash(): Promise<{ stored: string; info: { hash: string }; calls: { timeHash(count: number, concurrency: number): ReturnType<typeof timeHashes> } }> {
  const stored = await hashPassword(PASSWORD_USER.password);
  return {
    stored,
    // `$argon2id$v=19$m=…,t=…,p=…`: the salt and the hash left out.
    info: { hash: stored.slice(0, stored.lastIndexOf('$', stored.lastIndexOf('$') - 1)) },
    calls: {
      timeHash: (count, concurrency) =>
        timeHashes(async () => {
          if (!(await verifyPassword(PASSWORD_USER.password, stored)).valid) throw new Error('the stored hash did not verify');
        }, count, concurrency),
    },
  };
}
