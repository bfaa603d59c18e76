/** Shapes of the certificates API (contract §10), generated from the service's /openapi.json (../../api/schema.ts). */
import type { Schema } from '../../api/schema';

export type Certificate = Schema<'Certificate'>;
export type CertificateStatus = Certificate['status'];
export type CertificateLimits = Schema<'CertificateLimits'>;
export type CertificateLog = Schema<'CertificateLog'>;
export type CertificateFiles = Schema<'CertificateFiles'>;
/** `GET /certificates`: the account's certificates and its plan's limits. */
export type CertificateList = Schema<'CertificateList'>;
export type CertificateLogs = Schema<'CertificateLogs'>;
