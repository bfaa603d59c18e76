import { nameBasedEventId, uuidv7 } from './event-id';

describe('uuidv7', () => {
  it('is a version-7, RFC 9562 variant UUID carrying the time', () => {
    const id = uuidv7(0x0123456789ab);
    expect(id).toMatch(/^01234567-89ab-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('sorts by time', () => {
    const ids = [1000, 2000, 1_700_000_000_000].map((t) => uuidv7(t));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(Array.from({ length: 1000 }, () => uuidv7(5))).size).toBe(1000);
  });
});

describe('nameBasedEventId', () => {
  it('is the same UUID for the same name and differs across names', () => {
    const id = nameBasedEventId('setup-1:0');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(nameBasedEventId('setup-1:0')).toBe(id);
    expect(nameBasedEventId('setup-1:1')).not.toBe(id);
  });
});
