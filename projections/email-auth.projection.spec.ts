import { project } from '../libs/projection-engine/projection-harness';
import { EMAIL_AUTH_ZONES, emailAuthProjection } from './email-auth.projection';

const base = { zone: 'mail.test', account_id: 7, at: 't' };

describe('email_auth projection', () => {
  it('given DMARC configured and the wizard opened and advanced: the zone with its owner, policy and stage; replaying changes nothing', async () => {
    const h = await project(emailAuthProjection, [
      { type: 'SpfConfigured', data: { ...base, spf: {}, dns_lookups: 1 } },
      { type: 'DmarcConfigured', data: { ...base, dmarc: { policy: 'none' } } },
      { type: 'DmarcWizardStarted', data: { ...base, stage: 'monitoring', policy: 'none', percentage: 100 } },
      {
        type: 'DmarcStageAdvanced',
        data: {
          ...base,
          from_stage: 'monitoring',
          to_stage: 'quarantine_partial',
          policy: 'quarantine',
          percentage: 25,
        },
      },
    ]);
    const expected = [
      { _id: 'mail.test', zone: 'mail.test', account_id: 7, dmarc_policy: 'none', wizard_stage: 'quarantine_partial' },
    ];
    expect(await h.documents(EMAIL_AUTH_ZONES)).toEqual(expected);
    await h.replayed();
    expect(await h.documents(EMAIL_AUTH_ZONES)).toEqual(expected);
    await h.close();
  });
});
