import { dmarcPassRateVerdict, tlsFailuresVerdict } from './alert-rules';

describe('alert rule thresholds (contract §9)', () => {
  it('(b) DMARC: below 90% on 100 or more messages fires; fewer messages say nothing', () => {
    expect(dmarcPassRateVerdict(100, 89).verdict).toBe('firing');
    expect(dmarcPassRateVerdict(100, 90).verdict).toBe('clear');
    expect(dmarcPassRateVerdict(99, 0).verdict).toBe('no_data');
    expect(dmarcPassRateVerdict(1000, 899).figures).toEqual({ messages: 1000, passing: 899, pass_rate: 0.899 });
  });

  it('(c) TLS: more than 5% failed sessions fires; exactly 5% does not; no sessions say nothing', () => {
    expect(tlsFailuresVerdict(94, 6).verdict).toBe('firing');
    expect(tlsFailuresVerdict(95, 5).verdict).toBe('clear');
    expect(tlsFailuresVerdict(0, 0).verdict).toBe('no_data');
    expect(tlsFailuresVerdict(90, 10).figures).toEqual({
      sessions: 100,
      successful_sessions: 90,
      failed_sessions: 10,
      failed_ratio: 0.1,
    });
  });
});
