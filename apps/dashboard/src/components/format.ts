/** Display helpers shared by the screens. */
export const dateTime = (iso: string | null | undefined): string =>
  iso
    ? new Date(iso)
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d+Z$/, ' UTC')
        .replace(/Z$/, ' UTC')
    : '—';

export const percent = (v: number | null | undefined): string => (v == null ? '—' : `${v}%`);

export const ms = (v: number | null | undefined): string => (v == null ? '—' : `${v} ms`);

/** A list typed one item per line (or separated by commas or spaces), trimmed, empties dropped. */
export const splitList = (text: string): string[] =>
  text
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);

/** A duration in words a person reads at a glance: "45 s", "3 min 20 s", "2 h 5 min", "3 d 4 h". */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ''}`;
  if (s < 86_400)
    return `${Math.floor(s / 3600)} h${Math.floor((s % 3600) / 60) ? ` ${Math.floor((s % 3600) / 60)} min` : ''}`;
  return `${Math.floor(s / 86_400)} d${Math.floor((s % 86_400) / 3600) ? ` ${Math.floor((s % 86_400) / 3600)} h` : ''}`;
}
