import { pageIsFinal } from './report-row-pages';

describe('pageIsFinal', () => {
  // A report of 250 rows (indexes 0…249); `after` is the index of the row before the page.
  it('a full page whose next row is stored', () => {
    expect(pageIsFinal(250, -1, 100, { rows: 100, nextCursor: 'c' })).toBe(true);
  });

  it('the last page, ending on the last row', () => {
    expect(pageIsFinal(250, 199, 100, { rows: 50, nextCursor: null })).toBe(true);
    expect(pageIsFinal(200, 99, 100, { rows: 100, nextCursor: null })).toBe(true);
  });

  it('not while rows of the page are still missing', () => {
    expect(pageIsFinal(250, 199, 100, { rows: 20, nextCursor: null })).toBe(false);
    expect(pageIsFinal(250, -1, 100, { rows: 0, nextCursor: null })).toBe(false);
  });

  it('not while the row after a full page is missing (its next cursor would change)', () => {
    expect(pageIsFinal(250, -1, 100, { rows: 100, nextCursor: null })).toBe(false);
  });

  it('not past the end of the report (nothing worth keeping)', () => {
    expect(pageIsFinal(250, 249, 100, { rows: 0, nextCursor: null })).toBe(false);
    expect(pageIsFinal(250, 10_000, 100, { rows: 0, nextCursor: null })).toBe(false);
  });
});
