/** A small group of toggle buttons choosing one value (time windows, limits); the chosen one is aria-pressed. */
export function Segmented<T extends string | number>({
  label,
  options,
  value,
  onValue,
}: {
  label: string;
  options: { value: T; label: string }[];
  value: T;
  onValue: (v: T) => void;
}) {
  return (
    <div class="segmented" role="group" aria-label={label}>
      {options.map((o) => (
        <button
          key={o.value}
          type="button"
          class={o.value === value ? 'active' : 'button-secondary'}
          aria-pressed={o.value === value}
          onClick={() => onValue(o.value)}
        >
          {o.label}
        </button>
      ))}
    </div>
  );
}

/** The time windows the service's history endpoints take (uptime, DNS analytics). */
export const TIME_WINDOWS = [
  { value: '24h', label: '24 hours' },
  { value: '7d', label: '7 days' },
  { value: '30d', label: '30 days' },
] as const satisfies readonly { value: string; label: string }[];
