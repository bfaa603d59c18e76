import { generateKeyPairSync } from 'node:crypto';
import { specFor } from '../../shared/testing/decider-spec';
import { EmailAuthCommand, emailAuthDecider } from './email-auth.decider';
import { EmailAuthEvent } from './email-auth.events';
import { DmarcSettings } from './settings';
import { StageName } from './stages';

const spec = specFor(emailAuthDecider);
const zone = 'example.com';
const at = '2026-03-01T10:00:00.000Z';
const base = { zone, account_id: 1, at };
const cmd = <C extends Omit<EmailAuthCommand, 'accountId' | 'zone' | 'at'>>(c: C, accountId = 1) =>
  ({ ...c, accountId, zone, at }) as EmailAuthCommand;

const dmarc: DmarcSettings = {
  policy: 'none',
  subdomain_policy: null,
  percentage: 100,
  rua: ['mailto:rua@example.com'],
  ruf: [],
  adkim: 'r',
  aspf: 'r',
  fo: '0',
};
const configured: EmailAuthEvent = { type: 'DmarcConfigured', data: { ...base, dmarc } };
const started: EmailAuthEvent = {
  type: 'DmarcWizardStarted',
  data: { ...base, stage: 'monitoring', policy: 'none', percentage: 100 },
};
const metrics = (night: string, messages: number, passing: number, days: number): EmailAuthEvent => ({
  type: 'DmarcStageMetricsRecorded',
  data: {
    ...base,
    night,
    window_from: at,
    window_to: at,
    messages,
    passing,
    pass_rate: Math.round((passing / messages) * 1000) / 10,
    days_at_stage: days,
  },
});
const advanced = (
  from: StageName,
  to: StageName,
  policy: 'quarantine' | 'reject',
  percentage: number,
): EmailAuthEvent => ({
  type: 'DmarcStageAdvanced',
  data: {
    ...base,
    from_stage: from,
    to_stage: to,
    policy,
    percentage,
    history_entry: {
      stage: from,
      policy: 'none',
      percentage: 100,
      entered_at: at,
      exited_at: at,
      pass_rate: 100,
      messages: 500,
      days: 14,
    },
  },
});

describe('email-auth decider: settings', () => {
  it('given nothing, when DMARC is configured, then the settings and a first policy change are recorded', () => {
    spec
      .given([])
      .when(cmd({ type: 'ConfigureDmarc', dmarc: { policy: 'none', rua: ['mailto:RUA@Example.COM'] } }))
      .then([
        { type: 'DmarcConfigured', data: { ...base, dmarc: { ...dmarc, rua: ['mailto:RUA@example.com'] } } },
        {
          type: 'DmarcPolicyChanged',
          data: { ...base, source: 'settings', from: null, to: { policy: 'none', percentage: 100 }, stage: null },
        },
      ]);
  });

  it('given DMARC, when the same settings come again, then nothing; when only rua changes, no policy change', () => {
    spec
      .given([configured])
      .when(cmd({ type: 'ConfigureDmarc', dmarc: { policy: 'none', rua: ['mailto:rua@example.com'] } }))
      .then([]);
    spec
      .given([configured])
      .when(cmd({ type: 'ConfigureDmarc', dmarc: { policy: 'none', rua: ['mailto:other@example.com'] } }))
      .then([{ type: 'DmarcConfigured', data: { ...base, dmarc: { ...dmarc, rua: ['mailto:other@example.com'] } } }]);
  });

  it('refuses bad DMARC fields with the field named', () => {
    spec
      .given([])
      .when(cmd({ type: 'ConfigureDmarc', dmarc: { policy: 'none', percentage: 0 } }))
      .thenFails(400, /^percentage:/);
    spec
      .given([])
      .when(cmd({ type: 'ConfigureDmarc', dmarc: { policy: 'none', rua: ['https://x.example.com/'] } }))
      .thenFails(400, /^rua\[0\]:/);
  });

  it('refuses an SPF record over 10 DNS lookups', () => {
    spec
      .given([])
      .when(cmd({ type: 'ConfigureSpf', spf: { include: ['a.example.net'] }, dnsLookups: 11 }))
      .thenFails(400, /needs 11 DNS lookups/);
    spec
      .given([])
      .when(cmd({ type: 'ConfigureSpf', spf: { include: ['a.example.net'], all: '-all' }, dnsLookups: 10 }))
      .then([
        {
          type: 'SpfConfigured',
          data: { ...base, spf: { include: ['a.example.net'], ip4: [], ip6: [], all: '-all' }, dns_lookups: 10 },
        },
      ]);
  });

  it('records a, mx, exists and redirect when given; settings stored before them stay equal (issue 27)', () => {
    const old: EmailAuthEvent = {
      type: 'SpfConfigured',
      data: { ...base, spf: { include: ['a.example.net'], ip4: [], ip6: [], all: '-all' }, dns_lookups: 1 },
    };
    spec
      .given([old])
      .when(
        cmd({ type: 'ConfigureSpf', spf: { include: ['a.example.net'], all: '-all', a: [], mx: [] }, dnsLookups: 1 }),
      )
      .then([]);
    spec
      .given([old])
      .when(
        cmd({
          type: 'ConfigureSpf',
          spf: { mx: ['@'], exists: ['%{i}.spf.example.net'], redirect: '_spf.example.net', all: null },
          dnsLookups: 3,
        }),
      )
      .then([
        {
          type: 'SpfConfigured',
          data: {
            ...base,
            spf: {
              include: [],
              ip4: [],
              ip6: [],
              all: null,
              mx: ['@'],
              exists: ['%{i}.spf.example.net'],
              redirect: '_spf.example.net',
            },
            dns_lookups: 3,
          },
        },
      ]);
    spec
      .given([])
      .when(cmd({ type: 'ConfigureSpf', spf: { mx: ['@'], redirect: '_spf.example.net', all: '-all' }, dnsLookups: 2 }))
      .thenFails(400, /give either all or redirect/);
  });

  it('refuses an SPF record too long for a 512-byte answer', () => {
    const ip4 = Array.from({ length: 30 }, (_, i) => `198.51.100.${i}`);
    spec
      .given([])
      .when(cmd({ type: 'ConfigureSpf', spf: { ip4 }, dnsLookups: 0 }))
      .thenFails(400, /at most 450 keep the DNS answer within 512 bytes/);
  });

  it('records a DKIM public key with its size, and removes only keys that exist', () => {
    const { publicKey } = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      publicKeyEncoding: { type: 'spki', format: 'der' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
    const key = publicKey.toString('base64');
    const set: EmailAuthEvent = {
      type: 'DkimKeySet',
      data: {
        ...base,
        key: { selector: 's1', public_key: key, key_type: 'rsa', key_bits: 2048, generated: true, created_at: at },
      },
    };
    spec
      .given([])
      .when(cmd({ type: 'SetDkimKey', selector: 'S1', publicKey: key, generated: true }))
      .then([set]);
    spec
      .given([set])
      .when(cmd({ type: 'RemoveDkimKey', selector: 's1' }))
      .then([{ type: 'DkimKeyRemoved', data: { ...base, selector: 's1' } }]);
    spec
      .given([])
      .when(cmd({ type: 'RemoveDkimKey', selector: 's1' }))
      .thenFails(404, 'DKIM key not found');
    spec
      .given([])
      .when(cmd({ type: 'SetDkimKey', selector: '-bad', publicKey: key, generated: false }))
      .thenFails(400, /^selector:/);
  });

  it('gives each MTA-STS policy change a new id, and none to an unchanged policy', () => {
    const first: EmailAuthEvent = {
      type: 'MtaStsConfigured',
      data: {
        ...base,
        mta_sts: { mode: 'testing', mx: ['mx.example.com'], max_age: 86400, id: '202603011000000001', updated_at: at },
      },
    };
    spec
      .given([])
      .when(cmd({ type: 'ConfigureMtaSts', mtaSts: { mode: 'testing', mx: ['MX.example.com.'], max_age: 86400 } }))
      .then([first]);
    spec
      .given([first])
      .when(cmd({ type: 'ConfigureMtaSts', mtaSts: { mode: 'testing', mx: ['mx.example.com'], max_age: 86400 } }))
      .then([]);
    spec
      .given([first])
      .when(cmd({ type: 'ConfigureMtaSts', mtaSts: { mode: 'enforce', mx: ['mx.example.com'], max_age: 86400 } }))
      .then([
        {
          type: 'MtaStsConfigured',
          data: {
            ...base,
            mta_sts: {
              mode: 'enforce',
              mx: ['mx.example.com'],
              max_age: 86400,
              id: '202603011000000002',
              updated_at: at,
            },
          },
        },
      ]);
  });

  it('starts from nothing when the zone name now belongs to another account', () => {
    spec
      .given([configured])
      .when(cmd({ type: 'OpenWizard' }, 2))
      .thenFails(404, 'DMARC configuration not found for this zone');
  });
});

describe('email-auth decider: DMARC wizard', () => {
  it('given DMARC, when the wizard is opened, then a progression starts at monitoring; opening again changes nothing', () => {
    spec
      .given([])
      .when(cmd({ type: 'OpenWizard' }))
      .thenFails(404, 'DMARC configuration not found for this zone');
    spec
      .given([configured])
      .when(cmd({ type: 'OpenWizard' }))
      .then([started]);
    spec
      .given([configured, started])
      .when(cmd({ type: 'OpenWizard' }))
      .then([]);
  });

  it('records a night once, one more day each time', () => {
    spec
      .given([configured, started])
      .when(
        cmd({
          type: 'RecordNightlyMetrics',
          night: '2026-03-02',
          windowFrom: at,
          windowTo: at,
          messages: 300,
          passing: 299,
        }),
      )
      .then([
        {
          type: 'DmarcStageMetricsRecorded',
          data: {
            ...base,
            night: '2026-03-02',
            window_from: at,
            window_to: at,
            messages: 300,
            passing: 299,
            pass_rate: 99.7,
            days_at_stage: 1,
          },
        },
      ]);
    const night = metrics('2026-03-02', 300, 299, 1);
    spec
      .given([configured, started, night])
      .when(
        cmd({
          type: 'RecordNightlyMetrics',
          night: '2026-03-02',
          windowFrom: at,
          windowTo: at,
          messages: 999,
          passing: 0,
        }),
      )
      .then([]);
    spec
      .given([configured])
      .when(
        cmd({
          type: 'RecordNightlyMetrics',
          night: '2026-03-02',
          windowFrom: at,
          windowTo: at,
          messages: 1,
          passing: 1,
        }),
      )
      .then([]);
  });

  it('refuses to advance before the wizard, without confirmation, with a bad percentage or when not ready', () => {
    spec
      .given([configured])
      .when(cmd({ type: 'AdvanceStage', confirm: true }))
      .thenFails(404, 'DMARC progression not found');
    const ready = [configured, started, metrics('2026-03-15', 500, 500, 14)];
    spec
      .given(ready)
      .when(cmd({ type: 'AdvanceStage', confirm: false }))
      .thenFails(400, 'confirmation_required');
    spec
      .given(ready)
      .when(cmd({ type: 'AdvanceStage', confirm: true, percentage: 101 }))
      .thenFails(400, /^percentage: must be an integer from 1 to 100/);
    spec
      .given([configured, started, metrics('2026-03-15', 500, 480, 14)])
      .when(cmd({ type: 'AdvanceStage', confirm: true }))
      .thenFails(409, /low_pass_rate/);
    spec
      .given([
        configured,
        started,
        advanced('monitoring', 'quarantine_partial', 'quarantine', 10),
        metrics('2026-03-23', 500, 500, 7),
      ])
      .when(cmd({ type: 'AdvanceStage', confirm: true, percentage: 40 }))
      .thenFails(400, /only when entering quarantine_partial or reject_partial/);
  });

  it('given a ready monitoring stage, when advanced with 25 %, then the stage, its history and the policy change are recorded', () => {
    spec
      .given([configured, started, metrics('2026-03-15', 500, 495, 14)])
      .when(cmd({ type: 'AdvanceStage', confirm: true, percentage: 25 }))
      .then([
        {
          type: 'DmarcStageAdvanced',
          data: {
            ...base,
            from_stage: 'monitoring',
            to_stage: 'quarantine_partial',
            policy: 'quarantine',
            percentage: 25,
            history_entry: {
              stage: 'monitoring',
              policy: 'none',
              percentage: 100,
              entered_at: at,
              exited_at: at,
              pass_rate: 99,
              messages: 500,
              days: 14,
            },
          },
        },
        {
          type: 'DmarcPolicyChanged',
          data: {
            ...base,
            source: 'wizard',
            from: { policy: 'none', percentage: 100 },
            to: { policy: 'quarantine', percentage: 25 },
            stage: 'quarantine_partial',
          },
        },
      ]);
  });

  it('given reject_full, when advanced, then "Already at final policy stage"', () => {
    const atFinal = [
      configured,
      started,
      advanced('monitoring', 'quarantine_partial', 'quarantine', 10),
      advanced('quarantine_partial', 'quarantine_full', 'quarantine', 100),
      advanced('quarantine_full', 'reject_partial', 'reject', 10),
      advanced('reject_partial', 'reject_full', 'reject', 100),
    ];
    spec
      .given(atFinal)
      .when(cmd({ type: 'AdvanceStage', confirm: true }))
      .thenFails(409, 'Already at final policy stage');
    const state = atFinal.reduce(emailAuthDecider.evolve, emailAuthDecider.initialState());
    expect(state.progression!.stage_history).toHaveLength(4);
    expect(state.dmarc).toMatchObject({ policy: 'reject', percentage: 100 });
  });
});
