import { parseCpuAffinity } from '../shared/config';
import { planCpuLocality } from './cpu-locality';

describe('planCpuLocality', () => {
  it('pins thread i to CPU i and steers over all threads when each usable CPU gets one thread', () => {
    expect(planCpuLocality('on', 2, [0, 1])).toEqual({ ok: true, plan: { cpus: [0, 1], steerGroup: 2 } });
  });

  it('puts each thread on the CPU the program steers its socket index to (CPU number modulo threads)', () => {
    expect(planCpuLocality('on', 2, [2, 3])).toEqual({ ok: true, plan: { cpus: [2, 3], steerGroup: 2 } });
    expect(planCpuLocality('on', 3, [4, 5, 9])).toEqual({ ok: true, plan: { cpus: [9, 4, 5], steerGroup: 3 } });
  });

  it('steers or pins alone when asked to', () => {
    expect(planCpuLocality('steer', 2, [0, 1])).toEqual({ ok: true, plan: { cpus: null, steerGroup: 2 } });
    expect(planCpuLocality('pin', 2, [0, 1])).toEqual({ ok: true, plan: { cpus: [0, 1], steerGroup: null } });
  });

  it('does nothing, saying why, when switched off or when threads and usable CPUs do not match one to one', () => {
    expect(planCpuLocality('off', 2, [0, 1])).toEqual({ ok: false, reason: 'DNS_CPU_AFFINITY=off' });
    expect(planCpuLocality('on', 1, [0])).toEqual({ ok: false, reason: 'one DNS thread: nothing to steer' });
    expect(planCpuLocality('on', 3, [0, 1])).toEqual({ ok: false, reason: '3 DNS threads for 2 usable CPUs' });
    expect(planCpuLocality('on', 2, [0, 1, 2, 3])).toEqual({ ok: false, reason: '2 DNS threads for 4 usable CPUs' });
    expect(planCpuLocality('on', 2, [0, 2])).toEqual({
      ok: false,
      reason: 'usable CPUs 0,2 do not map one to one onto 2 threads',
    });
  });
});

describe('parseCpuAffinity (DNS_CPU_AFFINITY)', () => {
  it('takes on, off, steer and pin, and the default when unset', () => {
    expect(parseCpuAffinity(undefined, 'on')).toBe('on');
    expect(parseCpuAffinity('', 'on')).toBe('on');
    for (const mode of ['on', 'off', 'steer', 'pin'] as const) expect(parseCpuAffinity(mode, 'on')).toBe(mode);
  });

  it('refuses anything else rather than guessing', () => {
    expect(() => parseCpuAffinity('yes', 'on')).toThrow('DNS_CPU_AFFINITY must be one of on, off, steer, pin');
  });
});
