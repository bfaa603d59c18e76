export class SetMonitoring {
  constructor(
    readonly accountId: number,
    readonly domainId: number,
    readonly enabled: boolean,
    readonly actor: string,
    readonly sourceIp: string,
  ) {}
}
