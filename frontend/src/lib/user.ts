import type { UserView } from '@joy/domain';

/** The name a user is greeted with: first name, else the e-mail before the @, else "Friend". */
export function displayName(user: Pick<UserView, 'firstName' | 'email'> | null | undefined): string {
  const first = user?.firstName?.trim();
  if (first) return first;
  const local = user?.email?.split('@')[0]?.trim();
  if (local) return local;
  return 'Friend';
}
