import { UNKNOWN } from './query-row';

/** English region names from the runtime's ICU data: no IP database needed to name a country. */
const names = new Intl.DisplayNames(['en'], { type: 'region' });

/** The English name of an ISO 3166 alpha-2 code; `Unknown` stays `Unknown`, an unnamed code stays itself. */
export function countryName(code: string): string {
  if (code === UNKNOWN) return UNKNOWN;
  try {
    return names.of(code) ?? code;
  } catch {
    return code;
  }
}
