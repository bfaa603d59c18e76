/** Sent by the account-deletion process: remove every resource of a deleted account, then complete the deletion. */
export class RemoveAccountData {
  constructor(
    readonly accountId: number,
    readonly sourceIp: string | null,
    /** The process's command id: the completion's events derive theirs from it, so a resend appends nothing twice. */
    readonly commandId: string,
  ) {}
}
