export interface TransferCaller {
  accountId: number;
  actor: string;
  sourceIp: string;
}

export class CreateTsigKey {
  constructor(
    readonly caller: TransferCaller,
    readonly name: string,
    readonly algorithm: string,
    readonly purpose: string,
    readonly zones: string[],
    readonly allow: Array<{ name: string; types?: string[] }>,
  ) {}
}

export class DeleteTsigKey {
  constructor(
    readonly caller: TransferCaller,
    readonly keyId: string,
  ) {}
}

export class AddSecondary {
  constructor(
    readonly caller: TransferCaller,
    readonly zone: string,
    readonly address: string,
    readonly tsigKey: string,
  ) {}
}

export class RemoveSecondary {
  constructor(
    readonly caller: TransferCaller,
    readonly zone: string,
    readonly secondaryId: string,
  ) {}
}
