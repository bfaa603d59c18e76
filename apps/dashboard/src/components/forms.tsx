import { createContext, type ComponentChildren } from 'preact';
import { useContext, useEffect, useId, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { ApiError } from '../api/client';
import { explain } from '../api/explain';
import { ErrorNotice } from './notices';

/** The error of the form around a field: a field named as the API names it says its own problem. */
const FormError = createContext<ApiError | null>(null);

/**
 * The problem the last answer found with the field `name` (its value tells apart problems
 * the service words alike), and the attributes that tie it to the input.
 */
function useFieldProblem(id: string, name: string | undefined, value: string, hint: boolean) {
  const error = useContext(FormError);
  const problem = error && name ? (explain(error, { [name]: value }).fields[name] ?? null) : null;
  const describedBy = [hint && `${id}-hint`, problem && `${id}-error`].filter(Boolean).join(' ') || undefined;
  const message = problem ? (
    <p class="field-error" id={`${id}-error`}>
      {problem}
    </p>
  ) : null;
  return { describedBy, invalid: problem ? true : undefined, message };
}

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
  const p = useFieldProblem(id, rest.name, value, Boolean(hint));
  const input = useRef<HTMLInputElement>(null);
  // Focused by the page, not left to the browser's `autofocus`, which acts once per document load.
  useEffect(() => {
    if (rest.autoFocus) input.current?.focus();
  }, []);
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input
        id={id}
        value={value}
        onInput={(e) => onValue(e.currentTarget.value)}
        aria-describedby={p.describedBy}
        aria-invalid={p.invalid}
        {...(rest as Record<string, unknown>)}
      />
      {p.message}
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
  const p = useFieldProblem(id, rest.name, value, Boolean(hint));
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <textarea
        id={id}
        rows={rows}
        value={value}
        onInput={(e) => onValue(e.currentTarget.value)}
        aria-describedby={p.describedBy}
        aria-invalid={p.invalid}
        {...rest}
      />
      {p.message}
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
  const p = useFieldProblem(id, name, value, false);
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {p.message}
      <select
        id={id}
        name={name}
        value={value}
        onChange={(e) => onValue(e.currentTarget.value as T)}
        aria-describedby={p.describedBy}
        aria-invalid={p.invalid}
      >
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
  const form = useRef<HTMLFormElement>(null);
  // The fields of the error that this form shows (the rest is said in the notice), known once rendered.
  const [shown, setShown] = useState<string[]>([]);
  useLayoutEffect(() => {
    const el = form.current;
    if (!error || !el) return setShown([]);
    setShown(Object.keys(explain(error).fields).filter((f) => el.querySelector(`[name="${f}"]`)));
    // Keyboard and screen-reader users land on the first field to correct.
    el.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [error]);
  return (
    <form
      ref={form}
      class={`form ${cls ?? ''}`}
      aria-label={label}
      onSubmit={(e) => {
        e.preventDefault();
        if (!busy) onSubmit();
      }}
    >
      <FormError.Provider value={error}>{children}</FormError.Provider>
      <ErrorNotice error={error} fieldsShown={shown} />
      <div class="form-actions">
        <button type="submit" disabled={busy} aria-busy={busy}>
          {busy ? (busyLabel ?? 'Working…') : submitLabel}
        </button>
        {actions}
      </div>
    </form>
  );
}
