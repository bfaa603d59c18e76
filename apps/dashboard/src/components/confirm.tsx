import { useEffect, useRef, useState } from 'preact/hooks';

/**
 * A destructive action that asks again in place (no modal to trap focus, works with the
 * keyboard). Focus moves to the confirming button when it appears and back on Cancel, so a
 * keyboard user never lands on the page's start.
 */
export function ConfirmButton({ label, confirmLabel, onConfirm, busy }: { label: string; confirmLabel: string; onConfirm: () => void; busy?: boolean }) {
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
