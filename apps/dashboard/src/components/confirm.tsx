import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef, useState } from 'preact/hooks';

/**
 * A destructive action that asks again in place (no modal to trap focus, works with the
 * keyboard). Focus moves to the confirming button when it appears and back on Cancel, so a
 * keyboard user never lands on the page's start.
 */
export function ConfirmButton({
  label,
  confirmLabel,
  onConfirm,
  busy,
}: {
  label: string;
  confirmLabel: string;
  onConfirm: () => void;
  busy?: boolean;
}) {
  const [asking, setAsking] = useState(false);
  const confirmRef = useRef<HTMLButtonElement>(null);
  const askRef = useRef<HTMLButtonElement>(null);
  const wasAsking = useRef(false);
  useEffect(() => {
    if (asking) confirmRef.current?.focus();
    else if (wasAsking.current) askRef.current?.focus();
    wasAsking.current = asking;
  }, [asking]);
  if (!asking)
    return (
      <button ref={askRef} type="button" class="button-danger-outline" onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  return (
    <span class="confirm" role="group" aria-label={confirmLabel}>
      <button
        ref={confirmRef}
        type="button"
        class="button-danger"
        disabled={busy}
        onClick={() => {
          setAsking(false);
          onConfirm();
        }}
      >
        {confirmLabel}
      </button>
      <button type="button" class="button-secondary" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}

/**
 * A save that removes something asks again in place, naming what goes (`children`).
 * Focus moves to the confirming button when the panel appears; Back returns to the form.
 */
export function ConfirmPanel({
  title,
  confirmLabel,
  busy,
  onConfirm,
  onBack,
  children,
}: {
  title: string;
  confirmLabel: string;
  busy?: boolean;
  onConfirm: () => void;
  onBack: () => void;
  children: ComponentChildren;
}) {
  const confirm = useRef<HTMLButtonElement>(null);
  const titleId = useId();
  useEffect(() => confirm.current?.focus(), []);
  return (
    <div class="confirm-panel" role="group" aria-labelledby={titleId}>
      <p id={titleId}>
        <strong>{title}</strong>
      </p>
      {children}
      <span class="button-row">
        <button ref={confirm} type="button" class="button-danger" disabled={busy} onClick={onConfirm}>
          {confirmLabel}
        </button>
        <button type="button" class="button-secondary" onClick={onBack}>
          Back to editing
        </button>
      </span>
    </div>
  );
}
