import type { ComponentChildren } from 'preact';
import type { ApiError } from '../api/client';
import type { Resource } from './resource';

export const Loading = ({ label = 'Loading…' }: { label?: string }) => (
  <p class="loading" role="status" aria-live="polite">
    <span class="spinner" aria-hidden="true" />
    {label}
  </p>
);

export function ErrorNotice({ error, onRetry }: { error: ApiError | null; onRetry?: () => void }) {
  if (!error) return null;
  return (
    <div class="notice notice-error" role="alert">
      <p>{error.message}</p>
      {onRetry && (
        <button type="button" class="button-secondary" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

export const Notice = ({ kind = 'info', children }: { kind?: 'info' | 'success' | 'warning'; children: ComponentChildren }) => (
  <div class={`notice notice-${kind}`} role={kind === 'success' ? 'status' : undefined}>
    {children}
  </div>
);

/** Renders a resource's loading and error states, and its data through `children` once loaded. */
export function Loaded<T>({ resource, children, label }: { resource: Resource<T>; children: (data: T) => ComponentChildren; label?: string }) {
  if (resource.data === undefined) {
    if (resource.error) return <ErrorNotice error={resource.error} onRetry={() => void resource.reload()} />;
    return <Loading label={label} />;
  }
  return (
    <>
      {resource.error && <ErrorNotice error={resource.error} onRetry={() => void resource.reload()} />}
      {children(resource.data)}
    </>
  );
}
