import type { ComponentChildren } from 'preact';
import type { ApiError } from '../api/client';
import { explain } from '../api/explain';
import type { Resource } from './resource';

export const Loading = ({ label = 'Loading…' }: { label?: string }) => (
  <p class="loading" role="status" aria-live="polite">
    <span class="spinner" aria-hidden="true" />
    {label}
  </p>
);

/**
 * An error in words (api/explain.ts), with the service's own text behind a details toggle.
 * `fieldsShown` are the form fields that say their own problem beside the input: the notice
 * then only points at them.
 */
export function ErrorNotice({
  error,
  onRetry,
  fieldsShown = [],
}: {
  error: ApiError | null;
  onRetry?: () => void;
  fieldsShown?: string[];
}) {
  if (!error) return null;
  const e = explain(error);
  const elsewhere = Object.entries(e.fields).filter(([f]) => !fieldsShown.includes(f));
  const marked = Object.keys(e.fields).length - elsewhere.length;
  const lines = [
    ...(e.general ? [e.general] : []),
    ...elsewhere.map(([, text]) => text),
    ...(marked ? [marked === 1 ? 'Check the field marked below.' : 'Check the fields marked below.'] : []),
  ];
  return (
    <div class="notice notice-error" role="alert">
      {lines.map((l) => (
        <p key={l}>{l}</p>
      ))}
      {e.wire && (
        <details class="error-details">
          <summary>Details</summary>
          <code>
            {error.status ? `${error.status} ` : ''}
            {error.code}: {e.wire}
          </code>
        </details>
      )}
      {onRetry && (
        <button type="button" class="button-secondary" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

export const Notice = ({
  kind = 'info',
  children,
}: {
  kind?: 'info' | 'success' | 'warning';
  children: ComponentChildren;
}) => (
  <div class={`notice notice-${kind}`} role={kind === 'success' ? 'status' : undefined}>
    {children}
  </div>
);

/** Renders a resource's loading and error states, and its data through `children` once loaded. */
export function Loaded<T>({
  resource,
  children,
  label,
}: {
  resource: Resource<T>;
  children: (data: T) => ComponentChildren;
  label?: string;
}) {
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
