import { countryName } from './country-name';

describe('countryName', () => {
  it('names ISO 3166 alpha-2 codes in English', () => {
    expect(countryName('DE')).toBe('Germany');
    expect(countryName('US')).toBe('United States');
    expect(countryName('GB')).toBe('United Kingdom');
    expect(countryName('JP')).toBe('Japan');
  });

  it('keeps Unknown and codes it cannot name', () => {
    expect(countryName('Unknown')).toBe('Unknown');
    expect(countryName('1')).toBe('1');
  });
});
