import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from '../api/client';

export interface Resource<T> {
  data: T | undefined;
  error: ApiError | null;
  loading: boolean;
  reload(): Promise<void>;
  /** Replaces the data after a change the caller already holds the answer of. */
  set(data: T): void;
}

const asApiError = (e: unknown): ApiError => (e instanceof ApiError ? e : new ApiError(0, 'client_error', String(e)));

/** Loads data for a screen and keeps loading/error state; re-runs when `deps` change. */
export function useResource<T>(load: () => Promise<T>, deps: unknown[] = []): Resource<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<ApiError | null>(null);
  const [loading, setLoading] = useState(true);
  const generation = useRef(0);
  const reload = useCallback(async () => {
    const mine = ++generation.current;
    setLoading(true);
    try {
      const value = await load();
      if (mine === generation.current) {
        setData(value);
        setError(null);
      }
    } catch (e) {
      if (mine === generation.current) setError(asApiError(e));
    } finally {
      if (mine === generation.current) setLoading(false);
    }
  }, deps); // the caller lists what `load` depends on
  useEffect(() => {
    void reload();
  }, [reload]);
  return { data, error, loading, reload, set: setData };
}

/** Runs an action with busy and error state, for buttons and forms. */
export function useAction<A extends unknown[], R>(action: (...args: A) => Promise<R>) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const run = async (...args: A): Promise<R | undefined> => {
    setBusy(true);
    setError(null);
    try {
      return await action(...args);
    } catch (e) {
      setError(asApiError(e));
      return undefined;
    } finally {
      setBusy(false);
    }
  };
  return { run, busy, error, clearError: () => setError(null) };
}
