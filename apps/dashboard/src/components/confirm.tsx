import { useState } from 'preact/hooks';

/** A destructive action that asks again in place (no modal to trap focus, works with the keyboard). */
export function ConfirmButton({ label, confirmLabel, onConfirm, busy }: { label: string; confirmLabel: string; onConfirm: () => void; busy?: boolean }) {
  const [asking, setAsking] = useState(false);
  if (!asking)
    return (
      <button type="button" class="button-danger-outline" onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  return (
    <span class="confirm" role="group" aria-label={confirmLabel}>
      <button
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
