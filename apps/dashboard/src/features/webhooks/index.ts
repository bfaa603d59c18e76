import { planAtLeast, type ScreenDef } from '../../app/screen';
import { WebhookScreen } from './detail';
import { WebhooksScreen } from './list';

const WEBHOOKS = planAtLeast('pro', 'Webhooks');

export const webhookScreens: ScreenDef[] = [
  {
    path: '/webhooks',
    title: 'Webhooks',
    nav: { label: 'Webhooks', order: 62 },
    requires: WEBHOOKS,
    component: WebhooksScreen,
  },
  { path: '/webhooks/:id', title: 'Webhook', requires: WEBHOOKS, component: WebhookScreen },
];
