import { KeyAccess } from '../domain/api-key.events';

export class CreateApiKey {
  constructor(
    readonly accountId: number,
    readonly name: string,
    readonly access: KeyAccess,
    readonly domains: string[],
    readonly failureReportSubjects: boolean,
    readonly expiresInDays: number,
    readonly actor: string,
    readonly sourceIp: string,
  ) {}
}

export class DeactivateApiKey {
  constructor(
    readonly accountId: number,
    readonly keyId: string,
    readonly actor: string,
    readonly sourceIp: string,
  ) {}
}
