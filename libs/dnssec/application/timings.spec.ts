import { dnssecTimings, signatureWindow } from './timings';

describe('DNSSEC timings', () => {
  it('dates signatures an hour back (clock skew) and makes them valid 14 days', () => {
    const at = new Date('2026-01-01T00:00:00Z');
    const now = at.getTime() / 1000;
    expect(signatureWindow(at)).toEqual({ inception: now - 3600, expiration: now + 14 * 86400 });
  });

  it('waits RFC 7583 intervals from the TTLs unless a test shortens them', () => {
    expect(
      dnssecTimings({ dnssecPublishWaitSeconds: null, dnssecRetireWaitSeconds: null, dnssecDsCheckSeconds: null }),
    ).toEqual({
      refreshBeforeSeconds: 7 * 86400,
      publishWaitSeconds: 3600 + 3600,
      retireWaitSeconds: 86400 + 3600,
      dsCheckSeconds: 3600,
    });
    expect(
      dnssecTimings({ dnssecPublishWaitSeconds: 2, dnssecRetireWaitSeconds: 3, dnssecDsCheckSeconds: 1 }),
    ).toMatchObject({
      publishWaitSeconds: 2,
      retireWaitSeconds: 3,
      dsCheckSeconds: 1,
    });
  });
});
