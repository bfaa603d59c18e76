import { ArrayMaxSize, ArrayMinSize, IsArray, IsString, MaxLength } from 'class-validator';

/** Ids per request: a verifier's batch; the answer stays well under a megabyte of entries. */
export const MAX_AUDIT_IDS = 1000;

export class AuditEntryIdsDto {
  @IsArray({ message: 'ids must be an array of entry ids' })
  @ArrayMinSize(1, { message: 'ids: at least one id' })
  @ArrayMaxSize(MAX_AUDIT_IDS, { message: `ids: at most ${MAX_AUDIT_IDS} ids` })
  @IsString({ each: true, message: 'ids must be strings' })
  @MaxLength(64, { each: true, message: 'ids: each at most 64 characters' })
  ids: string[];
}
