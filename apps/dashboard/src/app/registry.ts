import { accountScreens } from '../features/account';
import { analyticsScreens } from '../features/analytics';
import { auditScreens } from '../features/audit';
import { certificateScreens } from '../features/certificates';
import { authScreens } from '../features/auth';
import { ddnsScreens } from '../features/ddns';
import { emailReportScreens } from '../features/email-reports';
import { emailAuthScreens } from '../features/email-auth';
import { historyScreens } from '../features/history';
import { keyScreens } from '../features/keys';
import { overviewScreens } from '../features/overview';
import { uptimeScreens } from '../features/uptime';
import { webhookScreens } from '../features/webhooks';
import { zoneScreens } from '../features/zones';
import { transferScreens } from '../features/transfers';
import type { ScreenDef } from './screen';

/**
 * Every screen of the dashboard, by capability. A new capability (certificates, email
 * authentication, DNS analytics) adds `features/<name>/index.ts` exporting its ScreenDefs
 * and one entry here; navigation, plan gates, titles and focus handling come with it.
 */
export const SCREENS: ScreenDef[] = [
  ...authScreens,
  ...overviewScreens,
  ...ddnsScreens,
  ...zoneScreens,
  ...uptimeScreens,
  ...emailReportScreens,
  ...keyScreens,
  ...transferScreens,
  ...accountScreens,
  ...auditScreens,
  ...certificateScreens,
  ...analyticsScreens,
  ...emailAuthScreens,
  ...historyScreens,
  ...webhookScreens,
];
