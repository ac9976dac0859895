/** The one account of the password group: the same address and password in our app and in Better Auth's. */
import { BENCH_USER } from './bench-user.js';

export const PASSWORD_USER = { name: BENCH_USER.name, email: BENCH_USER.email, password: 'bench correct horse battery' } as const;
