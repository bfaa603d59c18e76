import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Account } from '../api/types';

export interface Session {
  /** undefined while the first /account answer is awaited; null when signed out. */
  account: Account | null | undefined;
  /** Re-reads /account (after login, 2FA changes, plan changes). */
  refresh(): Promise<Account | null>;
  logout(): Promise<void>;
}

export const SessionContext = createContext<Session>({
  account: undefined,
  refresh: async () => null,
  logout: async () => undefined,
});

export const useSession = (): Session => useContext(SessionContext);
