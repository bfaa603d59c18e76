/**
 * The webhooks screens in a real browser (contract §19, issue 26): the plan gate, creating an
 * endpoint with its secret shown once, a test delivery to a real receiver that checks the
 * signature with `standardwebhooks`, disabling and enabling, editing, the delivery log with
 * redelivery, and deletion; axe-clean at desktop and phone width.
 */
import { WebhookReceiver } from '../bench/support/webhook-receiver';
import { DashboardSuite, eventually, findings, SignedIn, startDashboardSuite } from './support/dashboard-suite';

jest.setTimeout(120_000);

describe('dashboard: webhooks', () => {
  let s: DashboardSuite;
  let user: SignedIn;
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    await receiver.start();
    s = await startDashboardSuite({ ALLOW_PRIVATE_TARGETS: 'true' });
  });
  afterAll(async () => {
    await s?.close();
    await receiver.stop();
  });

  const main = () => s.page.locator('main').innerText();
  const row = (text: string) => s.page.getByRole('row').filter({ hasText: text });

  it('says which plan unlocks webhooks on the Free plan', async () => {
    user = await s.signIn({ plan: 'free' });
    await s.go('/webhooks');
    expect(await main()).toContain('Webhooks needs the Pro plan or higher.');
    await s.checkScreen('webhooks-plan-gate');
    expect((await s.server.http.admin('PUT', `/admin/accounts/${user.id}/subscription`, { plan: 'pro' })).status).toBe(
      200,
    );
  });

  it('creates an endpoint, shows its secret once, sends a signed test, disables and enables it', async () => {
    await s.go('/webhooks');
    const url = receiver.url('/dash');
    await s.page.getByLabel('Endpoint URL').fill(url);
    await s.page.getByLabel('All events').uncheck();
    await s.page.getByLabel('Zone records changed').check();
    await s.page.getByLabel('Description (optional)').fill('ops receiver');
    await s.page.getByRole('button', { name: 'Create webhook' }).click();
    await s.page.getByRole('heading', { name: 'Webhook created' }).waitFor();
    const secret = (await s.page.locator('.copy-text').innerText()).trim();
    expect(secret).toMatch(/^whsec_/);
    receiver.secret('/dash', secret);
    await s.checkScreen('webhooks-created');
    await s.page.getByRole('button', { name: 'Done' }).click();
    expect(await main()).not.toContain(secret);
    await row(url).getByText('Zone records changed').waitFor();

    await row(url)
      .getByRole('button', { name: `Send test to ${url}` })
      .click();
    await s.page.getByText(`Test event queued for ${url}.`).waitFor();
    await receiver.until(() => receiver.on('/dash').length === 1, 15_000, 'the test delivery');
    expect(receiver.on('/dash')[0]).toMatchObject({ verified: true, body: { type: 'webhook.test' } });

    await row(url)
      .getByRole('button', { name: `Disable ${url}` })
      .click();
    await row(url).getByText('Disabled').waitFor();
    expect(
      await row(url)
        .getByRole('button', { name: `Send test to ${url}` })
        .isDisabled(),
    ).toBe(true);
    await s.checkScreen('webhooks-list');
    await row(url)
      .getByRole('button', { name: `Enable ${url}` })
      .click();
    await row(url).getByText('Enabled').waitFor();
  });

  it('edits the endpoint, shows its delivery log and redelivers with the same webhook-id; deletes it', async () => {
    const url = receiver.url('/dash');
    await s.page.getByRole('link', { name: `ops receiver (${url})` }).click();
    await s.h1('Webhook');
    await s.page.getByLabel('Description (optional)').fill('ops receiver (edited)');
    await s.page.getByRole('button', { name: 'Save' }).click();
    await s.page.getByText('Saved.').waitFor();
    const webhooks = (await s.server.http.get('/webhooks', user.token)).body.webhooks;
    expect(webhooks[0]).toMatchObject({
      description: 'ops receiver (edited)',
      event_types: ['zone.changed'],
      enabled: true,
    });

    await eventually(
      async () => {
        await s.page.getByRole('button', { name: 'Refresh' }).click();
        await s.page.waitForSelector('.loading', { state: 'detached' });
        return s.page.locator('table').filter({ hasText: 'webhook.test' }).count();
      },
      (n) => n > 0,
    );
    expect(await row('webhook.test').innerText()).toContain('succeeded');
    await s.checkScreen('webhook-deliveries');
    await row('webhook.test')
      .getByRole('button', { name: /Redeliver webhook.test/ })
      .click();
    await s.page.getByText('Redelivery of webhook.test queued.').waitFor();
    await receiver.until(() => receiver.on('/dash').length === 2, 15_000, 'the redelivery');
    const [first, again] = receiver.on('/dash');
    expect(again.id).toBe(first.id);
    expect(again.verified).toBe(true);

    await s.page.getByRole('link', { name: 'All webhooks' }).click();
    await s.h1('Webhooks');
    await row(url).getByRole('button', { name: 'Delete' }).click();
    await s.page.getByRole('button', { name: `Delete webhook ${url}` }).click();
    await s.page.getByText('No webhooks yet.').waitFor();
    expect((await s.server.http.get('/webhooks', user.token)).body.webhooks).toEqual([]);

    expect(findings(s)).toEqual({ a11y: {}, overflow: {}, problems: [] });
  });
});
