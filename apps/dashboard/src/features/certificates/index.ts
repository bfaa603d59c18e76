import { planAtLeast, type ScreenDef } from '../../app/screen';
import { CertificateScreen } from './detail';
import { CertificatesScreen } from './list';

const CERTIFICATES = planAtLeast('plus', 'Certificate management');

export const certificateScreens: ScreenDef[] = [
  {
    path: '/certificates',
    title: 'Certificates',
    nav: { label: 'Certificates', order: 40 },
    requires: CERTIFICATES,
    component: CertificatesScreen,
  },
  { path: '/certificates/:id', title: 'Certificate', requires: CERTIFICATES, component: CertificateScreen },
];
