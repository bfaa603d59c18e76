import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { KeyedLock } from '../domains/application/keyed-lock';
import { EVENT_STORE, EventStore } from '../eventstore/event-store.port';
import { EventStreams } from '../eventstore/event-streams';
import { APP_CONFIG, AppConfig } from '../shared/config';
import { SECRET_BOX, SecretBox } from '../shared/crypto';
import { DnsModule } from '../dns-role/dns.module';
import { loadOrCreateAccountKey } from './application/acme-account';
import { AcmeClientAdapter } from './application/acme-client.adapter';
import { ACME_PORT } from './application/acme.port';
import { CERTIFICATE_COMMAND_HANDLERS, CertificateWriter } from './application/certificate.handlers';
import { CertificateQueries } from './application/certificate.queries';
import { ChallengeRecords } from './application/challenge-records';
import { IssuanceProcess } from './application/issuance.process';
import { IssuanceSteps } from './application/issuance-steps';
import { CertificateRenewalProcess } from './application/renewal.process';
import { CertificateRenewalJob } from './application/renewal.job';
import { CertificateJobsController, CertificatesController } from './http/certificates.controller';

@Module({
  imports: [AccountsModule, DnsModule],
  controllers: [CertificatesController, CertificateJobsController],
  providers: [
    {
      provide: ACME_PORT,
      inject: [APP_CONFIG, EVENT_STORE, EventStreams, SECRET_BOX],
      useFactory: (config: AppConfig, store: EventStore, streams: EventStreams, box: SecretBox) => {
        const directory = config.acmeDirectoryUrl ?? 'unconfigured';
        return new AcmeClientAdapter(directory, config.acmeCaCert, () =>
          loadOrCreateAccountKey(store, streams, box, directory, AcmeClientAdapter.createAccountKey),
        );
      },
    },
    KeyedLock,
    ChallengeRecords,
    IssuanceSteps,
    IssuanceProcess,
    CertificateWriter,
    ...CERTIFICATE_COMMAND_HANDLERS,
    CertificateQueries,
    CertificateRenewalJob,
    CertificateRenewalProcess,
  ],
})
export class CertificatesModule {}
