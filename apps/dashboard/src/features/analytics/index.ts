import { planAtLeast, type ScreenDef } from '../../app/screen';
import { AnalyticsScreen } from './screen';

export const analyticsScreens: ScreenDef[] = [
  {
    path: '/analytics',
    title: 'DNS analytics',
    nav: { label: 'DNS analytics', order: 35 },
    requires: planAtLeast('pro', 'DNS analytics'),
    component: AnalyticsScreen,
  },
];
