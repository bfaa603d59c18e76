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
