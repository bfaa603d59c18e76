import type { PlanRequirement, ScreenDef } from '../../app/screen';
import { EmailAuthZoneScreen } from './zone';
import { DmarcWizardScreen } from './wizard';
import { EmailAuthZonesScreen } from './zones';

/** Not a plan but an add-on (contract §7): the operators put zones in it. */
const ADD_ON: PlanRequirement = {
  allows: (a) => a.email_auth.tier !== 'none',
  badge: 'Add-on',
  message:
    'Email authentication (DMARC, SPF, DKIM, MTA-STS, TLS-RPT, BIMI and the DMARC wizard) needs the Email ' +
    'Authentication add-on, available with any plan.',
};

export const emailAuthScreens: ScreenDef[] = [
  {
    path: '/email-auth',
    title: 'Email authentication',
    nav: { label: 'Email authentication', order: 45 },
    requires: ADD_ON,
    component: EmailAuthZonesScreen,
  },
  {
    path: '/email-auth/:zone',
    title: (p) => `Email authentication: ${p.zone}`,
    requires: ADD_ON,
    component: EmailAuthZoneScreen,
  },
  { path: '/email-auth/:zone/wizard', title: 'DMARC wizard', requires: ADD_ON, component: DmarcWizardScreen },
];
