import type { ComponentChildren } from 'preact';
import { useId } from 'preact/hooks';
import type { ApiError } from '../api/client';
import { ErrorNotice } from './notices';

/** The input attributes the screens use, passed through as they are. */
interface InputProps {
  label: string;
  value: string;
  onValue: (v: string) => void;
  hint?: ComponentChildren;
  type?: string;
  name?: string;
  autocomplete?: string;
  required?: boolean;
  placeholder?: string;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  min?: number;
  max?: number;
  inputMode?: 'numeric' | 'text' | 'email';
  autoFocus?: boolean;
}

/** A labelled input with an optional hint tied to it for screen readers. */
export function TextField({ label, value, onValue, hint, ...rest }: InputProps) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input id={id} value={value} onInput={(e) => onValue(e.currentTarget.value)} aria-describedby={hint ? `${id}-hint` : undefined} {...(rest as Record<string, unknown>)} />
      {hint && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
    </div>
  );
}

export function TextArea({
  label,
  value,
  onValue,
  hint,
  rows = 6,
  ...rest
}: {
  label: string;
  value: string;
  onValue: (v: string) => void;
  hint?: ComponentChildren;
  rows?: number;
  name?: string;
  required?: boolean;
  spellcheck?: boolean;
}) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <textarea id={id} rows={rows} value={value} onInput={(e) => onValue(e.currentTarget.value)} aria-describedby={hint ? `${id}-hint` : undefined} {...rest} />
      {hint && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
    </div>
  );
}

export function SelectField<T extends string>({
  label,
  value,
  onValue,
  options,
  name,
}: {
  label: string;
  value: T;
  onValue: (v: T) => void;
  options: { value: T; label: string }[];
  name?: string;
}) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <select id={id} name={name} value={value} onChange={(e) => onValue(e.currentTarget.value as T)}>
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </div>
  );
}

export function Checkbox({
  label,
  checked,
  onChecked,
  name,
  disabled,
  hint,
}: {
  label: string;
  checked: boolean;
  onChecked: (v: boolean) => void;
  name?: string;
  disabled?: boolean;
  /** Said next to the box and tied to it, e.g. which plan unlocks a disabled option. */
  hint?: ComponentChildren;
}) {
  const id = useId();
  return (
    <div class="field field-check">
      <input
        id={id}
        type="checkbox"
        name={name}
        checked={checked}
        disabled={disabled}
        aria-describedby={hint ? `${id}-hint` : undefined}
        onChange={(e) => onChecked(e.currentTarget.checked)}
      />
      <label for={id}>{label}</label>
      {hint && (
        <span class="hint" id={`${id}-hint`}>
          {hint}
        </span>
      )}
    </div>
  );
}

/** A form that submits through an async action and shows its error; the submit button shows progress. */
export function Form({
  onSubmit,
  busy,
  error,
  submitLabel,
  busyLabel,
  children,
  label,
  class: cls,
  actions,
}: {
  /** Further buttons beside the submit button (Cancel), after it in reading order. */
  actions?: ComponentChildren;
  onSubmit: () => void;
  busy: boolean;
  error: ApiError | null;
  submitLabel: string;
  busyLabel?: string;
  children: ComponentChildren;
  label?: string;
  class?: string;
}) {
  return (
    <form
      class={`form ${cls ?? ''}`}
      aria-label={label}
      onSubmit={(e) => {
        e.preventDefault();
        if (!busy) onSubmit();
      }}
    >
      {children}
      <ErrorNotice error={error} />
      <div class="form-actions">
        <button type="submit" disabled={busy} aria-busy={busy}>
          {busy ? (busyLabel ?? 'Working…') : submitLabel}
        </button>
        {actions}
      </div>
    </form>
  );
}
